/**
 * The credit limit (docs/decisions.md, Credits): one credit per recipient, and a user may select exactly as
 * many recipients as their balance.
 */
export type CreditLimit = {
  /** Select All is disabled when the list is longer than the balance. */
  selectAllDisabled: boolean;
  /** At `selected == balance` the unselected rows are disabled. */
  atLimit: boolean;
};

export function creditLimit(listLength: number, selectedCount: number, balance: number): CreditLimit {
  return {
    selectAllDisabled: listLength > balance,
    atLimit: selectedCount >= balance,
  };
}

export const CREDIT_TEXTS = {
  reached: 'You have reached the credit limit',
  groups: 'Your groups count is greater than credit limit. So Select All is disabled',
  contacts: 'Your contacts count is greater than credit limit. So Select All is disabled',
} as const;

/** Ticking a row adds it unless the balance is spent; unticking always works. */
export function toggleOne(selected: ReadonlySet<string>, id: string, balance: number): Set<string> {
  const next = new Set(selected);
  if (next.has(id)) next.delete(id);
  else if (next.size < balance) next.add(id);
  return next;
}

/**
 * Select All: ticking selects every listed row (only allowed when the list fits
 * the balance); unticking clears the selection only when everything was selected.
 */
export function toggleAll(
  selected: ReadonlySet<string>,
  ids: readonly string[],
  balance: number,
  checked: boolean,
): Set<string> {
  if (checked) return ids.length > balance ? new Set(selected) : new Set(ids);
  return allSelected(selected, ids) ? new Set() : new Set(selected);
}

/** The Select All box is ticked when the selection equals the list. */
export function allSelected(selected: ReadonlySet<string>, ids: readonly string[]): boolean {
  return ids.length > 0 && selected.size === ids.length && ids.every((id) => selected.has(id));
}
