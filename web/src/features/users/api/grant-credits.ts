import type { GrantCreditsBody } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { adminKeys, userPath } from './keys.ts';

/** POST /api/admin/users/:id/credits: a positive amount adds, a negative one removes. */
export const grantCredits = (id: string, body: GrantCreditsBody) =>
  apiFetch<{ success: true; credits: number }>(`${userPath(id)}/credits`, { method: 'POST', body });
export const useGrantCredits = () =>
  useApiMutation((v: { id: string; body: GrantCreditsBody }) => grantCredits(v.id, v.body), [adminKeys.all]);
