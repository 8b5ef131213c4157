import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';

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
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSettled: () => Promise.all(invalidates.map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });
}
