import { chatIdOfPhone, type SendBody } from '@wa/contract';
import { FIELD_SEPARATOR, firstValues } from '../../lib/csv-contacts.ts';
import type { RowBits } from './row-bits.ts';

/** An uploaded CSV as the bulk page keeps it (lib/csv-contacts.ts): numbers, and packed field columns. */
export type BulkUpload = {
  fileName: string;
  numbers: string[];
  fieldKeys: string[];
  fieldColumns: string[];
  skippedText: string | null;
  /** Which column the numbers came from, in words ('Numbers from the column 'Mobile'.'). */
  columnText: string;
};

/** The fields of the first `n` numbers of `indices`, for the preview (without unpacking a column). */
export function fieldsOfFirst(upload: BulkUpload, indices: readonly number[]): Record<string, string>[] {
  const last = indices.length ? Math.max(...indices) + 1 : 0;
  const columns = upload.fieldColumns.map((c) => firstValues(c, last));
  return indices.map((i) => Object.fromEntries(upload.fieldKeys.map((k, c) => [k, columns[c]![i] ?? ''])));
}

/**
 * A number the upload already read by the phone rule, as a phone chat id:
 * the server takes a JID as it is, where a bare number would be parsed again (about 10 µs each,
 * a second per 1,00,000).
 */
const chatIdOf = chatIdOfPhone;

/**
 * The selected numbers of an upload as the send body wants them: a CSV with a header
 * sends its columns as `recipients: [{ chatId, fields }]`, a plain list of numbers as `chatIds`.
 * Runs once, when the send is made.
 */
export function uploadTarget(
  upload: BulkUpload | null,
  rows: RowBits,
): Pick<SendBody, 'chatIds' | 'recipients'> {
  if (!upload || rows.size === 0) return { chatIds: [] };
  const { numbers } = upload;
  const chosen = rows.indices();
  if (upload.fieldKeys.length === 0) return { chatIds: chosen.map((i) => chatIdOf(numbers[i]!)) };
  const columns = upload.fieldColumns.map((c) => c.split(FIELD_SEPARATOR));
  const recipients: NonNullable<SendBody['recipients']> = [];
  for (const i of chosen) {
    const chatId = chatIdOf(numbers[i]!);
    const fields: Record<string, string> = {};
    upload.fieldKeys.forEach((k, c) => {
      const v = columns[c]![i];
      if (v) fields[k] = v;
    });
    recipients.push({ chatId, fields });
  }
  return { chatIds: [], recipients };
}
