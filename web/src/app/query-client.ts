import { QueryClient } from '@tanstack/react-query';

/** The app's one query cache: the provider's, and the one the arrival's first reads go into (arrival.ts). */
export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});
