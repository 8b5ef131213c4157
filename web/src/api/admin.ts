/**
 * The admin area's query-key root: the users list, ledgers, the overview and the audit log all
 * live under it, so a change to a user (flags, credits) reads them all again.
 */
export const adminKeys = { all: ['admin'] as const };
