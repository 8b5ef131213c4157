/**
 * A managed user in the admin's pickers: 'Name (username)', searchable by either (a username
 * alone does not say who it is); the username alone when the name is not known (a list stored
 * before names were sent).
 */
export const userOption = (u: { user_id: string; username: string; name?: string }) => ({
  value: u.user_id,
  label: u.name && u.name !== u.username ? `${u.name} (${u.username})` : u.username,
});
