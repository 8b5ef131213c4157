/** Query keys of an account's groups: the compose page's and dashboard's list, the Group List page's chats. */
export const groupKeys = {
  list: (accountId: string | null) => ['groupsList', accountId] as const,
  chats: (accountId: string | null) => ['groupChats', accountId] as const,
};
