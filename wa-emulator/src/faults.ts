import type { BinaryNode } from 'baileys';

type IqFault = { match: (iq: BinaryNode) => boolean; code: number; text: string };
type DropFault = {
  match: (node: BinaryNode) => boolean;
  /** Cut the socket before or after acting on the node, or lose the node with the socket up. */
  when: 'before' | 'after' | 'lose';
  done: () => void;
};

/**
 * The faults a test ordered for an account (WaEmulator's failNextLogin, failNextSends,
 * failNextIqs, dropOnNext), each taken once, in order, by what it applies to.
 */
export class Faults {
  /** `<failure>` attributes the next logins are refused with. */
  private readonly logins = new Map<string, Record<string, string>[]>();
  /** Errors the server acks the next sends with. */
  private readonly sends = new Map<string, number[]>();
  /** Iqs answered with an error instead. */
  private readonly iqs = new Map<string, IqFault[]>();
  /** Sockets cut (or nodes lost) when a matching node arrives. */
  private readonly drops = new Map<string, DropFault[]>();

  addLogin(phone: string, attrs: Record<string, string>): void {
    push(this.logins, phone, [attrs]);
  }

  addSends(phone: string, code: number, count: number): void {
    push(
      this.sends,
      phone,
      Array.from({ length: count }, () => code),
    );
  }

  addIqs(phone: string, fault: IqFault, count: number): void {
    push(
      this.iqs,
      phone,
      Array.from({ length: count }, () => fault),
    );
  }

  /** Resolves once the socket was cut. */
  addDrop(phone: string, match: DropFault['match'], when: DropFault['when']): Promise<void> {
    return new Promise((done) => push(this.drops, phone, [{ match, when, done }]));
  }

  takeLogin(phone: string): Record<string, string> | undefined {
    return this.logins.get(phone)?.shift();
  }

  takeSend(phone: string): number | undefined {
    return this.sends.get(phone)?.shift();
  }

  /** The first iq fault of the account that `iq` matches, taken. */
  takeIq(phone: string, iq: BinaryNode): IqFault | undefined {
    return takeMatching(this.iqs.get(phone), iq);
  }

  /** The first drop of the account that `node` matches, taken. */
  takeDrop(phone: string, node: BinaryNode): DropFault | undefined {
    return takeMatching(this.drops.get(phone), node);
  }
}

function push<T>(map: Map<string, T[]>, phone: string, items: T[]): void {
  const list = map.get(phone) ?? [];
  list.push(...items);
  map.set(phone, list);
}

function takeMatching<T extends { match: (node: BinaryNode) => boolean }>(
  list: T[] | undefined,
  node: BinaryNode,
): T | undefined {
  const index = list?.findIndex((f) => f.match(node)) ?? -1;
  return index >= 0 ? list!.splice(index, 1)[0] : undefined;
}
