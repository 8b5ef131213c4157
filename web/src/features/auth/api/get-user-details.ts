import { queryOptions, useQuery } from '@tanstack/react-query';
import type { UserDetailsResponse } from '@wa/contract';
import { useSyncExternalStore } from 'react';
import { apiFetch } from '../../../lib/api.ts';
import { storage, subscribeStorage } from '../../../lib/storage.ts';

export const userDetailsKeys = { all: ['userDetails'] as const };

/** GET /api/userDetails: the balance is stored (userCreditsAvailable) and shown from storage. */
export const userDetailsQuery = () =>
  queryOptions({
    queryKey: userDetailsKeys.all,
    queryFn: async () => {
      const data = await apiFetch<UserDetailsResponse>('/api/userDetails');
      storage.setCredits(data.credits.user_credits);
      storage.setAdminUsers(data.credits.admin_users);
      return data;
    },
  });

export const useUserDetails = () => useQuery(userDetailsQuery());

/**
 * The stored balance, re-rendering when it changes. It also watches GET /api/userDetails, so
 * that wherever a balance is shown, a mutation that charges or refunds (each invalidates
 * `userDetailsKeys.all`) reads it again; an unwatched query would only be marked stale.
 */
export function useBalance(): number {
  useQuery({ ...userDetailsQuery(), notifyOnChangeProps: [] });
  return useSyncExternalStore(subscribeStorage, storage.credits);
}
