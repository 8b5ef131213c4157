import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';

/**
 * The one way the app reads queries again after something changed on the server: every query
 * under each of `keys`. Mutations use it through `useApiMutation`; a change the page learns of
 * otherwise (a poll that saw a job end, a linked account, the Refresh button) calls it directly.
 */
export function useInvalidate() {
  const queryClient = useQueryClient();
  return useCallback(
    (keys: readonly QueryKey[]) =>
      Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey }))).then(() => undefined),
    [queryClient],
  );
}

/**
 * The one way the app runs a mutation: TanStack's useMutation, which reads again every query
 * under `invalidates` once the call answered (success or failure: a failure may have changed
 * something too). What a page shows afterwards is given per call:
 * `mutation.mutate(vars, { onSuccess, onError })`.
 */
export function useApiMutation<TVars, TData>(
  mutationFn: (vars: TVars) => Promise<TData>,
  invalidates: readonly QueryKey[],
) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn,
    onSettled: () => invalidate(invalidates),
  });
}
