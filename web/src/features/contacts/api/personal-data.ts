import type { PersonalData } from '@wa/contract';
import { apiDownload, apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';

const byPhone = (phone: string) => `/api/contacts/by-phone/${encodeURIComponent(phone)}`;

/**
 * GET /api/contacts/by-phone/:phone: everything held about a number, read on demand
 * (each read is in the audit log, so it is not a query that refetches by itself).
 */
export const getPersonalData = (phone: string) => apiFetch<PersonalData>(byPhone(phone));
export const usePersonalData = () => useApiMutation(getPersonalData, []);

/** The same as a file: JSON or CSV, saved as 'personal-data-{number}.{format}'. */
export const downloadPersonalData = (v: { phone: string; format: 'json' | 'csv' }) =>
  apiDownload(
    `${byPhone(v.phone)}?format=${v.format}`,
    `personal-data-${v.phone.replace(/\D/g, '')}.${v.format}`,
  );
export const useDownloadPersonalData = () => useApiMutation(downloadPersonalData, []);
