import { describe, expect, it } from 'vitest';
// The minimal .xlsx writer of the server's import tests (one sheet, numbers as numbers).
import { xlsxOf } from '../../../server/test/fakes/xlsx.ts';
import {
  type CsvUpload,
  cleanPhoneNumber,
  contactsReceiver,
  describePhoneColumn,
  describeSkipped,
  firstValues,
  NUMBERS_PER_MESSAGE,
  parseContactsCsv,
  postContacts,
  readContactsCsv,
  splitLinesInChunks,
  type WorkerMessage,
} from './csv-contacts.ts';

describe('cleanPhoneNumber', () => {
  it('removes spaces, dashes, dots, brackets and a leading +', () => {
    expect(cleanPhoneNumber(' +91 (98765) 432-10 ')).toEqual({ number: '919876543210' });
    expect(cleanPhoneNumber('44.20.7946.0958')).toEqual({ number: '442079460958' });
  });
  it('gives a 10-digit number the default country code', () => {
    expect(cleanPhoneNumber('9876543210')).toEqual({ number: '919876543210' });
    expect(cleanPhoneNumber('2015550123', '1')).toEqual({ number: '12015550123' });
  });
  it('keeps what libphonenumber-js accepts (00 and national 0 prefixes too) and refuses the rest', () => {
    expect(cleanPhoneNumber('00447911123456')).toEqual({ number: '447911123456' });
    expect(cleanPhoneNumber('09876543210')).toEqual({ number: '919876543210' });
    expect(cleanPhoneNumber('1234567')).toEqual({ reason: 'invalid' });
    expect(cleanPhoneNumber('1234567890123456')).toEqual({ reason: 'invalid' });
    expect(cleanPhoneNumber('98765abc10')).toEqual({ reason: 'invalid' });
  });
  it('calls a cell without digits a header', () => {
    expect(cleanPhoneNumber('phone')).toEqual({ reason: 'noDigits' });
  });
});

describe('parseContactsCsv', () => {
  it('reads the first column with a BOM, CRLF, a header, quotes, layout characters and a duplicate', () => {
    const csv =
      '\uFEFFphone,name\r\n' +
      '"98765 43210","Asha, K"\r\n' +
      '919876543211,Ravi\r\n' +
      '  +91-98765-43212  ,Meena\r\n' +
      '\r\n' +
      '9876543210,Asha again\r\n' +
      '12,too short\r\n' +
      '447911123456\r\n';
    const result = parseContactsCsv(csv);
    expect(result.numbers).toEqual(['919876543210', '919876543211', '919876543212', '447911123456']);
    expect(result.skipped).toEqual({ noDigits: 1, invalid: 1, duplicates: 1 });
  });
  it('handles LF files and a trailing newline without counting empty lines', () => {
    expect(parseContactsCsv('9876543210\n\n\n9876543211\n')).toEqual({
      numbers: ['919876543210', '919876543211'],
      skipped: { noDigits: 0, invalid: 0, duplicates: 0 },
      fieldKeys: [],
      fieldValues: [],
      phoneColumn: 'column 1',
    });
  });
  it('counts a line whose first column is empty as having no number', () => {
    expect(parseContactsCsv(',9876543210\n9876543211').skipped.noDigits).toBe(1);
  });
  it('returns nothing for an empty file', () => {
    expect(parseContactsCsv('')).toEqual({
      numbers: [],
      skipped: { noDigits: 0, invalid: 0, duplicates: 0 },
      fieldKeys: [],
      fieldValues: [],
      phoneColumn: 'column 1',
    });
  });
  it('finds the phone column of a file with a header and keeps the other columns as fields', () => {
    const csv = 'Name,City,Mobile Number\nAsha Kumar,Pune,98765 43210\nRavi,,+91 98765 43211\nX,Y,12\n';
    expect(parseContactsCsv(csv)).toEqual({
      numbers: ['919876543210', '919876543211'],
      skipped: { noDigits: 1, invalid: 1, duplicates: 0 },
      fieldKeys: ['name', 'city'],
      fieldValues: [
        ['Asha Kumar', 'Ravi'],
        ['Pune', ''],
      ],
      phoneColumn: 'Mobile Number',
    });
  });
  it('loads a Name,Mobile file of numbers written as people write them, from the Mobile column', () => {
    const csv =
      'Name,Mobile\r\nAsha,09800015838\r\nRavi,0091 98000 15839\r\nMeena,919800015840.0\r\nGeeta,98000 15841\r\n';
    const result = parseContactsCsv(csv);
    expect(result).toEqual({
      numbers: ['919800015838', '919800015839', '919800015840', '919800015841'],
      skipped: { noDigits: 1, invalid: 0, duplicates: 0 },
      fieldKeys: ['name'],
      fieldValues: [['Asha', 'Ravi', 'Meena', 'Geeta']],
      phoneColumn: 'Mobile',
    });
    expect(describePhoneColumn(result.phoneColumn)).toBe("Numbers from the column 'Mobile'.");
  });
  it('finds the number column of a file without a header by its content, and a semicolon file', () => {
    const plain = parseContactsCsv('Asha,09800015838\nRavi,09800015839\n');
    expect(plain.numbers).toEqual(['919800015838', '919800015839']);
    expect(plain.phoneColumn).toBe('column 2');
    expect(describePhoneColumn(plain.phoneColumn)).toBe('Numbers from column 2.');
    expect(parseContactsCsv('Name;Phone\nAsha;09800015838\n')).toMatchObject({
      numbers: ['919800015838'],
      fieldKeys: ['name'],
      phoneColumn: 'Phone',
    });
  });
});

describe('parseContactsCsv with stray quotes', () => {
  it('reads each line on its own when a quote opened inside a cell runs over line breaks', () => {
    const csv = ['phone,item', '9800015838,5" TV', '9800015839,Radio', '9800015840,Fan'].join('\n');
    expect(parseContactsCsv(csv).numbers).toEqual(['919800015838', '919800015839', '919800015840']);
  });
  it('keeps the lines after a formula whose quotes are not RFC 4180', () => {
    const csv = [
      'phone,name',
      '=HYPERLINK("http://evil.example","Click"),Formula',
      '+919876500001,=1+2',
    ].join('\n');
    expect(parseContactsCsv(csv)).toMatchObject({
      numbers: ['919876500001'],
      skipped: { noDigits: 2, invalid: 0, duplicates: 0 },
    });
  });
});

describe('describeSkipped', () => {
  it('says nothing when nothing was skipped', () => {
    expect(describeSkipped({ noDigits: 0, invalid: 0, duplicates: 0 })).toBeNull();
  });
  it('counts every reason', () => {
    expect(describeSkipped({ noDigits: 1, invalid: 2, duplicates: 1 })).toBe(
      'Skipped 4 lines: 1 without a number (header or text), 2 invalid (not a phone number), 1 duplicate.',
    );
  });
});

describe('readContactsCsv', () => {
  it('refuses binary data posing as a CSV with the spec’s processing error', async () => {
    const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0x39, 0x31])], 'photo.csv');
    await expect(readContactsCsv(png)).rejects.toThrow('Error processing the CSV file');
  });

  it('reads a real CSV file', async () => {
    const file = new File(['phone\r\n98765 43210\r\n+91 98765-43211\r\n'], 'list.csv', { type: 'text/csv' });
    await expect(readContactsCsv(file)).resolves.toEqual({
      numbers: ['919876543210', '919876543211'],
      skipped: { noDigits: 1, invalid: 0, duplicates: 0 },
      fieldKeys: [],
      fieldColumns: [],
      phoneColumn: 'phone',
    });
  });

  it('reads an Excel sheet (.xlsx) with the same rule: numbers stored as numbers, a national 0', async () => {
    const xlsx = xlsxOf([
      ['Name', 'Mobile'],
      ['Asha', '09800015838'],
      ['Ravi', 919800015839],
      ['Meena', 9800015840],
      ['Wrong', '12345'],
    ]);
    const file = new File([new Uint8Array(xlsx)], 'contacts.xlsx');
    const upload = await readContactsCsv(file);
    expect(upload).toMatchObject({
      numbers: ['919800015838', '919800015839', '919800015840'],
      skipped: { noDigits: 1, invalid: 1, duplicates: 0 },
      fieldKeys: ['name'],
      phoneColumn: 'Mobile',
    });
    expect(firstValues(upload.fieldColumns[0]!, 3)).toEqual(['Asha', 'Ravi', 'Meena']);
  });

  it('refuses a zip that is no spreadsheet with the spec’s processing error', async () => {
    const zip = new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6])], 'list.xlsx');
    await expect(readContactsCsv(zip)).rejects.toThrow('Error processing the CSV file');
  });

  it('keeps field values packed until asked for', async () => {
    const file = new File(['name,phone\nAsha,9876543210\n"Ravi, Jr",9876543211\n'], 'list.csv');
    const upload = await readContactsCsv(file);
    expect(upload.fieldKeys).toEqual(['name']);
    expect(firstValues(upload.fieldColumns[0]!, 3)).toEqual(['Asha', 'Ravi, Jr']);
    expect(firstValues(upload.fieldColumns[0]!, 1)).toEqual(['Asha']);
  });
});

describe('postContacts → contactsReceiver', () => {
  it('carries an upload from the worker in parts and gathers it whole', () => {
    const n = NUMBERS_PER_MESSAGE * 2 + 5;
    const numbers = Array.from({ length: n }, (_, i) => String(919000000000 + i));
    const contacts = {
      numbers,
      skipped: { noDigits: 1, invalid: 0, duplicates: 0 },
      fieldKeys: ['name'],
      fieldValues: [numbers.map((_, i) => `Name ${i}`)],
      phoneColumn: 'phone',
    };
    const messages: WorkerMessage[] = [];
    postContacts(contacts, (m) => messages.push(m));
    expect(messages.filter((m) => m.kind === 'numbers')).toHaveLength(3);
    let upload: CsvUpload | null = null;
    const receive = contactsReceiver(
      (u) => {
        upload = u;
      },
      () => {},
    );
    for (const m of messages) receive(m);
    expect(upload).toMatchObject({
      numbers,
      skipped: contacts.skipped,
      fieldKeys: ['name'],
      phoneColumn: 'phone',
    });
    expect(firstValues(upload!.fieldColumns[0]!, n)).toEqual(contacts.fieldValues[0]);
  });
});

describe('splitLinesInChunks', () => {
  it('splits as split does, across chunks', async () => {
    const text = Array.from({ length: 25 }, (_, i) => `9198000000${String(i).padStart(2, '0')}`).join('\n');
    await expect(splitLinesInChunks(text, 7)).resolves.toEqual(text.split('\n'));
    await expect(splitLinesInChunks('', 7)).resolves.toEqual([]);
    await expect(splitLinesInChunks('919800000001', 7)).resolves.toEqual(['919800000001']);
  });
});
