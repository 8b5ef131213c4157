import type { EraseResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { contactListKeys, optOutKeys } from './keys.ts';

/**
 * DELETE /api/contacts/by-phone/:phone: the number leaves every list and the opt-out
 * list (a keyed token keeps it out of sends) and is replaced by that token in past jobs.
 */
export const erasePerson = (phone: string) =>
  apiFetch<EraseResponse>(`/api/contacts/by-phone/${encodeURIComponent(phone)}`, { method: 'DELETE' });
export const useErasePerson = () => useApiMutation(erasePerson, [contactListKeys.all, optOutKeys.all]);
