/**
 * Unsent work kept in this browser (IndexedDB), one record per page and user: what a person
 * typed, the file they uploaded and what they ticked survive a sidebar link, Back and a reload.
 * IndexedDB, not sessionStorage: a draft holds files (a CSV, a photo), which it stores as they
 * are, without reading them into strings.
 */
const DB_NAME = 'wa-console';
const STORE = 'drafts';

let opening: Promise<IDBDatabase> | null = null;

function database(): Promise<IDBDatabase> {
  opening ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => {
      opening = null;
      reject(req.error);
    };
  });
  return opening;
}

async function run<T>(mode: IDBTransactionMode, op: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await database();
  return new Promise((resolve, reject) => {
    const req = op(db.transaction(STORE, mode).objectStore(STORE));
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

export const drafts = {
  read: <T>(key: string) => run<T | undefined>('readonly', (s) => s.get(key)),
  write: (key: string, value: unknown) => run('readwrite', (s) => s.put(value, key)).then(() => undefined),
  remove: (key: string) => run('readwrite', (s) => s.delete(key)).then(() => undefined),
};
