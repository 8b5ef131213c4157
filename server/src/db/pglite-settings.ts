/** PGLITE_SHARED_BUFFERS when unset (see openPglite): 32 MB, PostgreSQL's default before 9.3. */
export const PGLITE_SHARED_BUFFERS_DEFAULT = '32MB';
