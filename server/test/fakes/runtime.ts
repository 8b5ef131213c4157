import { EventEmitter } from 'node:events';
import type { AccountRuntime, AccountRuntimeEvents } from '../../src/accounts/runtime.ts';
import { onSocketOutcome } from '../../src/transport/socket-outcomes.ts';
import type { Transport } from '../../src/transport/types.ts';
import { FakeTransport } from './transport.ts';

/** A AccountRuntime whose accounts a test connects and disconnects by hand. */
export class FakeRuntime extends EventEmitter<AccountRuntimeEvents> implements AccountRuntime {
  readonly transports = new Map<string, FakeTransport>();
  private readonly connected = new Set<string>();

  /**
   * Connects (creating once) the fake transport of an account of `userId` and announces it. As the
   * account runner: what the transport reports goes up as the runtime's outcomes.
   */
  connect(accountId: string, userId: string): FakeTransport {
    let t = this.transports.get(accountId);
    if (!t) {
      const transport = new FakeTransport(accountId);
      this.transports.set(accountId, transport);
      onSocketOutcome(transport, (o) => this.emit('outcome', accountId, userId, o));
      t = transport;
    }
    t.state = 'open';
    this.connected.add(accountId);
    this.emit('connected', accountId);
    return t;
  }

  disconnect(accountId: string): void {
    const t = this.transports.get(accountId);
    if (t) t.state = 'closed';
    this.connected.delete(accountId);
    this.emit('disconnected', accountId);
  }

  transportFor(accountId: string): Transport | undefined {
    return this.connected.has(accountId) ? this.transports.get(accountId) : undefined;
  }

  ownedAccountIds(): string[] {
    return [...this.connected];
  }

  async stop(): Promise<void> {
    for (const id of [...this.connected]) this.disconnect(id);
  }
}
