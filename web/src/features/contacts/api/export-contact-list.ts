import { apiDownload } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { listPath } from './keys.ts';

/** GET /api/contact-lists/:id/export.csv, saved as '{list name}.csv'. */
export const exportContactList = (id: string, name: string) =>
  apiDownload(`${listPath(id)}/export.csv`, `${name.replace(/[\\/:*?"<>|]+/g, '_') || 'contacts'}.csv`);
export const useExportContactList = () =>
  useApiMutation((v: { id: string; name: string }) => exportContactList(v.id, v.name), []);
