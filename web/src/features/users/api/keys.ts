import { adminKeys } from '../../admin/api/keys.ts';

export { adminKeys };

export const usersPath = '/api/admin/users';
export const userPath = (id: string) => `${usersPath}/${encodeURIComponent(id)}`;
