import { describe, expect, it } from 'vitest';
import { allSelected, creditLimit, toggleAll, toggleOne } from './credit-limit.ts';

const ids = ['a', 'b', 'c', 'd'];

describe('creditLimit', () => {
  it('disables Select All when the list is longer than the balance', () => {
    expect(creditLimit(4, 0, 3).selectAllDisabled).toBe(true);
    expect(creditLimit(4, 0, 4).selectAllDisabled).toBe(false);
  });
  it('reaches the limit exactly at selected == balance', () => {
    expect(creditLimit(4, 2, 3).atLimit).toBe(false);
    expect(creditLimit(4, 3, 3).atLimit).toBe(true);
    expect(creditLimit(4, 0, 0).atLimit).toBe(true);
  });
});

describe('toggleOne', () => {
  it('selects up to the balance and no further', () => {
    let s = toggleOne(new Set(), 'a', 2);
    s = toggleOne(s, 'b', 2);
    s = toggleOne(s, 'c', 2);
    expect([...s]).toEqual(['a', 'b']);
    s = toggleOne(s, 'a', 2);
    expect([...s]).toEqual(['b']);
  });
});

describe('toggleAll', () => {
  it('ticking selects every row when the list fits the balance', () => {
    expect(toggleAll(new Set(['a']), ids, 4, true)).toEqual(new Set(ids));
    expect(toggleAll(new Set(['a']), ids, 3, true)).toEqual(new Set(['a']));
  });
  it('unticking clears only when everything was selected', () => {
    expect(toggleAll(new Set(ids), ids, 4, false).size).toBe(0);
    expect(toggleAll(new Set(['a', 'b']), ids, 4, false)).toEqual(new Set(['a', 'b']));
  });
  it('is ticked when the selection equals the list', () => {
    expect(allSelected(new Set(ids), ids)).toBe(true);
    expect(allSelected(new Set(['a']), ids)).toBe(false);
    expect(allSelected(new Set(), [])).toBe(false);
  });
});
