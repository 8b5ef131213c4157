import { describe, expect, it } from 'vitest';
import { FIELD_SEPARATOR } from '../../lib/csv-contacts.ts';
import { type BulkUpload, uploadTarget } from './bulk-recipients.ts';
import { RowBits } from './row-bits.ts';

const upload = (fieldKeys: string[], fieldColumns: string[]): BulkUpload => ({
  fileName: 'f.csv',
  numbers: ['919800015838', '919800015839', '919800015840'],
  fieldKeys,
  fieldColumns,
  skippedText: null,
  columnText: "Numbers from the column 'Mobile'.",
});

describe('the bulk page’s send body', () => {
  it('sends the ticked numbers as chat ids, in list order', () => {
    const rows = RowBits.none(3).toggle(2, 10).toggle(0, 10);
    expect(uploadTarget(upload([], []), rows)).toEqual({
      chatIds: ['919800015838@s.whatsapp.net', '919800015840@s.whatsapp.net'],
    });
  });

  it('sends a CSV with fields as recipients, each with its own non-empty fields', () => {
    const rows = RowBits.none(3).toggleAll(true, 10);
    const names = ['Asha', '', 'Meera'].join(FIELD_SEPARATOR);
    expect(uploadTarget(upload(['name'], [names]), rows)).toEqual({
      chatIds: [],
      recipients: [
        { chatId: '919800015838@s.whatsapp.net', fields: { name: 'Asha' } },
        { chatId: '919800015839@s.whatsapp.net', fields: {} },
        { chatId: '919800015840@s.whatsapp.net', fields: { name: 'Meera' } },
      ],
    });
  });

  it('sends nothing without an upload or a ticked row', () => {
    expect(uploadTarget(null, RowBits.none(0))).toEqual({ chatIds: [] });
    expect(uploadTarget(upload([], []), RowBits.none(3))).toEqual({ chatIds: [] });
  });
});
