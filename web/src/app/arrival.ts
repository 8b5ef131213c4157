import type { QueryClient } from '@tanstack/react-query';
import { prefetchReport } from '../features/report/api/get-report-jobs.ts';
import { storage } from '../lib/storage.ts';
import { preloadPage } from './pages.tsx';

/** The router's path in a location hash: `#/reports?x` → `/reports`. */
export function hashPath(hash: string): string {
  const path = hash.replace(/^#/, '').split(/[?#]/)[0] ?? '';
  return path.length > 1 ? path.replace(/\/+$/, '') : path || '/';
}

/**
 * Starts what the page the console opens on needs, before React renders the shell: its chunk,
 * and for the MIS Report its first page of jobs. Otherwise the chunk is asked for only once the
 * shell has rendered, and the jobs only once the page has (each after the one before).
 */
export function startArrival(queryClient: QueryClient, hash: string): Promise<void> {
  const path = hashPath(hash);
  const chunk = preloadPage(path);
  // The guards' conditions (RequireAuth, RequireUser): anyone else is sent elsewhere.
  const userId = storage.userId();
  if (path === '/reports' && storage.token() && !storage.isAdmin() && userId) {
    // A prefetch never throws: a failed read is read again, and its error shown, by the page.
    void prefetchReport(queryClient, userId);
  }
  return chunk;
}
