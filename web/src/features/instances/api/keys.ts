/** Query keys of the sessions area: every instance mutation changes the sessions list. */
export const sessionKeys = { all: ['sessions'] as const };
