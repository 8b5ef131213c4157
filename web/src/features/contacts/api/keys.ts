/** Every query about contact lists sits under `all`: invalidating it refreshes lists and contacts. */
export const contactListKeys = {
  all: ['contactLists'] as const,
  list: ['contactLists', 'list'] as const,
  contacts: (id: string, offset: number, search: string) =>
    ['contactLists', id, 'contacts', offset, search] as const,
  sample: (id: string | null) => ['contactLists', id, 'sample'] as const,
  recipients: (id: string) => ['contactLists', id, 'recipients'] as const,
};

export const optOutKeys = { all: ['optOuts'] as const };

export const listPath = (id: string) => `/api/contact-lists/${encodeURIComponent(id)}`;
