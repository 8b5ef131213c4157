/** Query keys of an account's groups: the compose page's and dashboard's list, the Group List page's chats. */
export const groupKeys = {
  list: (sessionId: string | null) => ['groupsList', sessionId] as const,
  chats: (sessionId: string | null) => ['groupChats', sessionId] as const,
};
