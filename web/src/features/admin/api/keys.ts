/**
 * The admin area's query keys: the users list, ledgers, the overview and the audit log all live
 * under `all`, so a change to a user (flags, credits) reads them all again.
 */
export const adminKeys = {
  all: ['admin'] as const,
  users: ['admin', 'users'] as const,
  ledger: (id: string | null) => ['admin', 'ledger', id] as const,
  overview: ['admin', 'overview'] as const,
  audit: (page: number, userId: string | null) => ['admin', 'audit', page, userId] as const,
};
