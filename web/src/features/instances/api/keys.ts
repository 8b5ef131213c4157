/** Query keys of the accounts area: every instance mutation changes the accounts list. */
export const accountKeys = { all: ['sessions'] as const };
