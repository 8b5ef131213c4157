import { type ComponentType, useEffect, useState } from 'react';
import { PageLoader } from './PageLoader.tsx';

/** Lazily loaded script timeout (docs/decisions.md, Kept to the letter). */
const CHUNK_TIMEOUT_MS = 120_000;

type Page = ComponentType & {
  /** Starts loading the chunk (once, or again after a failed load); the page renders from the same load. */
  preload: () => Promise<{ default: ComponentType }>;
};

/**
 * Each route is its own chunk, loaded on first visit; a load that hangs fails after 120 s. While
 * it loads the page shows the loader itself rather than through Suspense: React reveals a
 * boundary's content no sooner than 300 ms after its fallback appeared, and the chunk of the page
 * a visit opens on (preloaded on arrival) is usually there well before that.
 */
const page = (load: () => Promise<{ default: ComponentType }>): Page => {
  let loading: Promise<{ default: ComponentType }> | undefined;
  let loaded: ComponentType | undefined;
  const preload = () => {
    if (!loading) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('Loading the page timed out')), CHUNK_TIMEOUT_MS);
      });
      loading = Promise.race([load(), timeout]).finally(() => clearTimeout(timer));
      loading.then(
        (module) => {
          loaded = module.default;
        },
        // The page that asked shows the error; the next visit (or preload) tries again.
        () => {
          loading = undefined;
        },
      );
    }
    return loading;
  };
  const Page = () => {
    const [Loaded, setLoaded] = useState(() => loaded);
    useEffect(() => {
      if (Loaded) return;
      let live = true;
      preload().then(
        (module) => live && setLoaded(() => module.default),
        // A chunk that failed (or timed out) goes to the error boundary, which offers Reload.
        (err: unknown) =>
          live &&
          setLoaded(() => {
            throw err;
          }),
      );
      return () => {
        live = false;
      };
    }, [Loaded]);
    return Loaded ? <Loaded /> : <PageLoader />;
  };
  return Object.assign(Page, { preload });
};

export const LoginPage = page(() => import('../features/auth/LoginPage.tsx'));
export const RegisterPage = page(() => import('../features/auth/RegisterPage.tsx'));
export const ForgotPasswordPage = page(() => import('../features/auth/ForgotPasswordPage.tsx'));
export const DashboardPage = page(() => import('../features/dashboard/DashboardPage.tsx'));
/**
 * The admin's dashboard shows the report feature's MIS Report of the user picked, and that user's
 * Inbox read-only: composed here.
 */
export const AdminDashboardPage = page(async () => {
  const [admin, report, inbox] = await Promise.all([
    import('../features/admin/AdminDashboardPage.tsx'),
    import('../features/report/MisReport.tsx'),
    import('../features/inbox/InboxView.tsx'),
  ]);
  const { MisReport } = report;
  const { ManagedInbox } = inbox;
  const Admin = admin.default;
  return {
    default: () => (
      <Admin
        report={(userId) => <MisReport key={userId} userId={userId} />}
        inbox={(userId) => <ManagedInbox key={userId} userId={userId} />}
      />
    ),
  };
});
export const AccountsPage = page(() => import('../features/instances/AccountsPage.tsx'));
export const ComposePage = page(() => import('../features/compose/ComposePage.tsx'));
export const BulkMessagePage = page(() => import('../features/compose/BulkMessagePage.tsx'));
export const JobsPage = page(() => import('../features/jobs/JobsPage.tsx'));
export const InboxPage = page(() => import('../features/inbox/InboxPage.tsx'));
export const ContactsPage = page(() => import('../features/contacts/ContactsPage.tsx'));
export const GroupsPage = page(() => import('../features/groups/GroupsPage.tsx'));
export const AddGroupPage = page(() => import('../features/groups/AddGroupPage.tsx'));
export const ChannelsPage = page(() => import('../features/channels/ChannelsPage.tsx'));
export const UsersPage = page(() => import('../features/users/UsersPage.tsx'));
export const ReportsPage = page(() => import('../features/report/ReportsPage.tsx'));
export const ApiKeysPage = page(() => import('../features/api-keys/ApiKeysPage.tsx'));
export const WebhooksPage = page(() => import('../features/webhooks/WebhooksPage.tsx'));
export const ChangePasswordPage = page(() => import('../features/account/ChangePasswordPage.tsx'));

/** The pages by path, for loading the page a visit opens on before React asks for it (arrival.ts). */
const PAGES: Record<string, Page> = {
  '/login': LoginPage,
  '/register': RegisterPage,
  '/forgot-password': ForgotPasswordPage,
  '/adminDashboard': AdminDashboardPage,
  '/users': UsersPage,
  '/dashboard': DashboardPage,
  '/instances': AccountsPage,
  '/compose': ComposePage,
  '/bulkmessage': BulkMessagePage,
  '/jobs': JobsPage,
  '/inbox': InboxPage,
  '/contacts': ContactsPage,
  '/groups': GroupsPage,
  '/groups/new': AddGroupPage,
  '/channels': ChannelsPage,
  '/reports': ReportsPage,
  '/api-keys': ApiKeysPage,
  '/webhooks': WebhooksPage,
  '/password': ChangePasswordPage,
};

/** Starts loading the chunk of the page at `path`, if there is one; settles once it has loaded or failed. */
export function preloadPage(path: string): Promise<void> {
  // A chunk that fails is reported by the page's error boundary when it renders, not here.
  return (
    PAGES[path]?.preload().then(
      () => undefined,
      () => undefined,
    ) ?? Promise.resolve()
  );
}

/** The browser's idle callback, or a timer where there is none (Safari). */
function whenIdle(run: () => void): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const handle = window.requestIdleCallback(run, { timeout: 5_000 });
    return () => window.cancelIdleCallback(handle);
  }
  const timer = window.setTimeout(run, 1_000);
  return () => window.clearTimeout(timer);
}

/**
 * How long the page the console opened on has to itself before the background loads start: idle
 * moments come between its own steps too (its data is on the way), and a chunk compiled in one
 * of them delayed the MIS Report's first rows (reads bench: warm 340-367 → 408-412 ms).
 */
const PRELOAD_AFTER_MS = 2_000;

/**
 * Loads the chunks of the pages at `paths` one at a time while the browser has nothing else to do,
 * so that moving to another page of the console shows it at once rather than a loader while its
 * chunk comes. Returns a cancel. A chunk that fails here is tried again when its page is opened.
 */
export function preloadWhenIdle(paths: readonly string[]): () => void {
  let cancelled = false;
  let cancel = () => {};
  const next = (i: number) => {
    if (cancelled || i >= paths.length) return;
    cancel = whenIdle(() => {
      void preloadPage(paths[i]!).then(() => next(i + 1));
    });
  };
  const start = window.setTimeout(() => next(0), PRELOAD_AFTER_MS);
  cancel = () => window.clearTimeout(start);
  return () => {
    cancelled = true;
    cancel();
  };
}
