import { useEffect, useRef, useState } from 'react';
import { drafts } from '../../lib/drafts.ts';
import { storage } from '../../lib/storage.ts';

/** How long typing rests before the draft is written (and on leaving the page at once). */
const SAVE_AFTER_MS = 250;

type Stored<T> = { savedAt: string; value: T };

/**
 * The page's draft for the signed-in user: read once the page is `ready` (its accounts loaded)
 * and handed to `restore`, then written whenever `value` changes, and removed once it is empty
 * (after a send, or emptied by hand). `restoredAt` says when the restored draft was saved, for the
 * page's note; `discard` removes it.
 */
export function useDraft<T>(opts: {
  page: string;
  ready: boolean;
  value: T;
  isEmpty: (value: T) => boolean;
  restore: (value: T) => void | Promise<void>;
}) {
  const key = `${storage.userId() ?? 'anonymous'}:${opts.page}`;
  const [loaded, setLoaded] = useState(false);
  const [restoredAt, setRestoredAt] = useState<string | null>(null);
  const latest = useRef(opts);
  latest.current = opts;
  const pending = useRef<Stored<T> | null | undefined>(undefined);

  useEffect(() => {
    if (!opts.ready || loaded) return;
    let live = true;
    void (async () => {
      try {
        const stored = await drafts.read<Stored<T>>(key);
        if (live && stored && !latest.current.isEmpty(stored.value)) {
          await latest.current.restore(stored.value);
          setRestoredAt(stored.savedAt);
        }
      } catch {
        // A browser without IndexedDB (a private window of some browsers): no drafts, nothing lost.
      }
      if (live) setLoaded(true);
    })();
    return () => {
      live = false;
    };
  }, [opts.ready, loaded, key]);

  const flush = () => {
    const next = pending.current;
    if (next === undefined) return;
    pending.current = undefined;
    void (next === null ? drafts.remove(key) : drafts.write(key, next)).catch(() => {});
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: written when the value changes
  useEffect(() => {
    if (!loaded) return;
    const empty = opts.isEmpty(opts.value);
    if (empty) setRestoredAt(null);
    pending.current = empty ? null : { savedAt: new Date().toISOString(), value: opts.value };
    const timer = setTimeout(flush, SAVE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [opts.value, loaded]);

  // Leaving the page (a link, Back) or the browser (reload, close) writes what is pending.
  // biome-ignore lint/correctness/useExhaustiveDependencies: flush reads refs only
  useEffect(() => {
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      flush();
    };
  }, [key]);

  return {
    restoredAt,
    /** Hides the note, keeping the draft. */
    dismiss: () => setRestoredAt(null),
    /** Removes the stored draft; the page clears its own fields. */
    discard: () => {
      pending.current = undefined;
      setRestoredAt(null);
      void drafts.remove(key).catch(() => {});
    },
  };
}
