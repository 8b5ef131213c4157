import { describe, expect, it } from 'vitest';
import { RowBits } from './row-bits.ts';

describe('RowBits', () => {
  it('ticks and unticks rows, stopping at the balance', () => {
    let s = RowBits.none(4);
    s = s.toggle(1, 2).toggle(3, 2);
    expect(s.size).toBe(2);
    expect(s.indices()).toEqual([1, 3]);
    // At the balance another row is refused; unticking always works.
    expect(s.toggle(0, 2)).toBe(s);
    s = s.toggle(1, 2);
    expect(s.indices()).toEqual([3]);
    expect(s.has(3)).toBe(true);
    expect(s.has(1)).toBe(false);
  });
  it('leaves the earlier value unchanged (a copy per change)', () => {
    const a = RowBits.none(3);
    const b = a.toggle(0, 5);
    expect(a.has(0)).toBe(false);
    expect(b.has(0)).toBe(true);
  });
  it('Select All only when the list fits the balance; unticking clears only a full selection', () => {
    const s = RowBits.none(3);
    expect(s.toggleAll(true, 2)).toBe(s);
    const all = s.toggleAll(true, 3);
    expect(all.everything).toBe(true);
    expect(all.size).toBe(3);
    expect(all.toggleAll(false, 3).size).toBe(0);
    const partial = s.toggle(0, 3);
    expect(partial.toggleAll(false, 3)).toBe(partial);
    expect(RowBits.none(0).everything).toBe(false);
  });
  it('selects a million rows at once and lists the first ones', () => {
    const all = RowBits.none(1_000_000).toggleAll(true, 1_000_000);
    expect(all.size).toBe(1_000_000);
    expect(all.indices(3)).toEqual([0, 1, 2]);
    expect(all.toggle(0, 1_000_000).indices(2)).toEqual([1, 2]);
  });
});
