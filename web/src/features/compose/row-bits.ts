import type { RowSelection } from './RecipientTable.tsx';

/**
 * The bulk page's selection: one byte per uploaded row, and the count. Select All fills the
 * bytes (a million in a millisecond) where a set of a million numbers took seconds to build; the
 * credit rules are credit-limit.ts's: ticking stops at the balance, Select All only when the
 * list fits it, unticking Select All clears only a full selection. Each change is a new value
 * (a copy of the bytes), as React state wants.
 */
export class RowBits {
  private constructor(
    private readonly bits: Uint8Array,
    readonly size: number,
  ) {}

  static none(length: number): RowBits {
    return new RowBits(new Uint8Array(length), 0);
  }

  /** The bytes and the count, as a draft keeps them. */
  toStored(): { bits: Uint8Array; size: number } {
    return { bits: this.bits, size: this.size };
  }

  static fromStored(stored: { bits: Uint8Array; size: number }): RowBits {
    return new RowBits(stored.bits, stored.size);
  }

  get length(): number {
    return this.bits.length;
  }

  has(index: number): boolean {
    return this.bits[index] === 1;
  }

  get everything(): boolean {
    return this.bits.length > 0 && this.size === this.bits.length;
  }

  toggle(index: number, balance: number): RowBits {
    if (index < 0 || index >= this.bits.length) return this;
    const on = this.has(index);
    if (!on && this.size >= balance) return this;
    const bits = this.bits.slice();
    bits[index] = on ? 0 : 1;
    return new RowBits(bits, this.size + (on ? -1 : 1));
  }

  toggleAll(checked: boolean, balance: number): RowBits {
    if (checked)
      return this.bits.length > balance
        ? this
        : new RowBits(new Uint8Array(this.bits.length).fill(1), this.bits.length);
    return this.everything ? RowBits.none(this.bits.length) : this;
  }

  /** The selected rows in list order; the first `max` only when given. */
  indices(max = Number.POSITIVE_INFINITY): number[] {
    const out: number[] = [];
    if (this.size === 0) return out;
    if (this.everything) {
      const n = Math.min(this.bits.length, max);
      for (let i = 0; i < n; i++) out.push(i);
      return out;
    }
    for (let i = 0; i < this.bits.length && out.length < max; i++) if (this.bits[i] === 1) out.push(i);
    return out;
  }

  /** The table's view of it, each change handed to `set`. */
  view(balance: number, set: (next: RowBits) => void): RowSelection {
    return {
      size: this.size,
      has: (i) => this.has(i),
      everything: this.everything,
      toggle: (i) => set(this.toggle(i, balance)),
      toggleAll: (checked) => set(this.toggleAll(checked, balance)),
    };
  }
}
