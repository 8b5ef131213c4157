import {
  CsvRowReader,
  checkPhone,
  detectColumns,
  detectDelimiter,
  fieldKey,
  parsePhone,
  readCsvRows,
  sheetCellText,
} from '@wa/contract';
import { describe, expect, it } from 'vitest';

// The one phone rule (contract/src/phone.ts) and the table detection of contract/src/table.ts.
describe('parsePhone', () => {
  it.each([
    ['9800015838', '919800015838'],
    ['+91 98000 15838', '919800015838'],
    ['+91-98000-15838', '919800015838'],
    ['(+91) 98000 15838', '919800015838'],
    ['0091 9800015838', '919800015838'],
    ['0091 98000 15838', '919800015838'],
    ['9123456780', '919123456780'],
    ['09800015838', '919800015838'],
    ['919800015838', '919800015838'],
    ['919800015838.0', '919800015838'],
    ['9.19800015838E+11', '919800015838'],
    ['+1 (415) 555-2671', '14155552671'],
    ['14155552671', '14155552671'],
    ['+91 98000 15838 ::: +91 98000 15839', '919800015838'],
  ])('%s → %s', (cell, number) => {
    expect(parsePhone(cell, '91')).toEqual({ number });
  });

  // Every layout of the calling code a spreadsheet produces.
  it.each([
    ['(+91)9800015838'],
    ['(0091) 98000 15838'],
    ['(0091)9800015838'],
    ['( 00 91 ) 98000-15838'],
    ['[+91] 98000 15838'],
    ['+(91)-98000-15838'],
    ['(+91) (0)98000 15838'],
    ["'+91 98000 15838"],
    ['="+919800015838"'],
    ['\u202a+91 98000 15838\u202c'],
    ['+91\u00a098000\u00a015838'],
    ['＋９１ ９８０００ １５８３８'],
  ])('%s → 919800015838', (cell) => {
    expect(parsePhone(cell, '91')).toEqual({ number: '919800015838' });
  });

  it('keeps a bracketed area code as part of the national number', () => {
    expect(parsePhone('(044) 2345 6789', '91')).toEqual({ number: '914423456789' });
    expect(parsePhone('(+44) 7911 123456', '91')).toEqual({ number: '447911123456' });
  });

  it('uses the default calling code given', () => {
    expect(parsePhone('(415) 555-2671', '1')).toEqual({ number: '14155552671' });
  });

  it.each([['12345'], ['phone'], ['+91 12'], ['abc 9800015838 xyz 1'], ['1e+400']])(
    '%s is invalid',
    (cell) => {
      expect(parsePhone(cell, '91')).toEqual({ reason: 'invalid' });
    },
  );

  it('an empty cell is empty', () => {
    expect(parsePhone('   ', '91')).toEqual({ reason: 'empty' });
  });
});

describe('checkPhone: the stored number or the words a person reads', () => {
  it('stores the numbers as people write them as country code + digits', () => {
    expect(checkPhone('09800015838', '91')).toEqual({ number: '919800015838' });
    expect(checkPhone('0091 98000 15838', '91')).toEqual({ number: '919800015838' });
    expect(checkPhone('919800015838.0', '91')).toEqual({ number: '919800015838' });
    expect(checkPhone(' 9123456780 ', '91')).toEqual({ number: '919123456780' });
  });
  it('says what is wrong, with the input as typed', () => {
    expect(checkPhone('  ', '91')).toEqual({ error: 'Please enter a phone number' });
    expect(checkPhone(' 12345 ', '91')).toEqual({ error: 'Invalid phone number: 12345' });
    expect(checkPhone('98000 1583', '91')).toEqual({ error: 'Invalid phone number: 98000 1583' });
    expect(checkPhone('Mobile', '91')).toEqual({ error: 'Invalid phone number: Mobile' });
  });
  it('reads spreadsheet cells as text: numbers as written, empty as empty', () => {
    expect(sheetCellText(919800015838)).toBe('919800015838');
    expect(sheetCellText(null)).toBe('');
    expect(sheetCellText(undefined)).toBe('');
    expect(sheetCellText(new Date('2026-11-23T00:00:00Z'))).toBe('2026-11-23T00:00:00.000Z');
  });
});

describe('CSV reading', () => {
  it('detects , ; and tab', () => {
    expect(detectDelimiter('name,phone\nAsha,9800015838\n')).toBe(',');
    expect(detectDelimiter('name;phone;city\nAsha;9800015838;Pune\nRavi;9800015839;Goa\n')).toBe(';');
    expect(detectDelimiter('name\tphone\nAsha\t9800015838\n')).toBe('\t');
    expect(detectDelimiter('9800015838\n9800015839\n')).toBe(',');
    // A comma inside quotes does not count.
    expect(detectDelimiter('"Rao, Asha";9800015838\n"Das, Ravi";9800015839\n')).toBe(';');
  });

  it('reads quoted fields, CRLF and a BOM, across chunks', () => {
    const text = '\uFEFFname,phone\r\n"Rao, ""Asha""",9800015838\r\n"two\nlines",9800015839';
    expect(readCsvRows(text, ',')).toEqual([
      ['name', 'phone'],
      ['Rao, "Asha"', '9800015838'],
      ['two\nlines', '9800015839'],
    ]);
    const reader = new CsvRowReader(',');
    const rows: string[][] = [];
    for (const ch of text) rows.push(...reader.push(ch));
    rows.push(...reader.end());
    expect(rows).toEqual(readCsvRows(text, ','));
  });
});

describe('detectColumns', () => {
  it('finds the phone column by an English header and makes the rest fields', () => {
    const c = detectColumns(
      [
        ['Name', 'Mobile', 'Area'],
        ['Asha', '98000 15838', 'Pune'],
      ],
      '91',
    );
    expect(c).toEqual({
      hasHeader: true,
      headers: ['Name', 'Mobile', 'Area'],
      phoneColumn: 1,
      fields: [
        { column: 0, key: 'name' },
        { column: 2, key: 'area' },
      ],
    });
  });

  it('finds Mobile in a Name,Mobile file of numbers written with a national 0', () => {
    const c = detectColumns(
      [
        ['Name', 'Mobile'],
        ['Asha', '09800015838'],
        ['Ravi', '0091 98000 15839'],
        ['Meena', '919800015840.0'],
      ],
      '91',
    );
    expect(c).toMatchObject({ hasHeader: true, phoneColumn: 1, fields: [{ column: 0, key: 'name' }] });
  });

  it('finds it by a Hindi header', () => {
    const c = detectColumns(
      [
        ['नाम', 'मोबाइल नंबर'],
        ['आशा', '9800015838'],
      ],
      '91',
    );
    expect(c.phoneColumn).toBe(1);
    expect(c.fields).toEqual([{ column: 0, key: 'name' }]);
  });

  it('among several phone headers takes the one whose values are numbers (Google Contacts)', () => {
    const c = detectColumns(
      [
        ['First Name', 'Last Name', 'Phone 1 - Label', 'Phone 1 - Value'],
        ['Asha', 'Rao', 'Mobile', '+91 98000 15838 ::: +91 98000 15839'],
        ['Ravi', 'Das', 'Work', '+91 98000 15840'],
      ],
      '91',
    );
    expect(c.phoneColumn).toBe(3);
    expect(c.fields.map((f) => f.key)).toEqual(['name', 'last_name', 'phone_1__label']);
  });

  it('finds it by content when no header names it', () => {
    const c = detectColumns(
      [
        ['Who', 'Where', 'Reach'],
        ['Asha', 'Pune', '9800015838'],
      ],
      '91',
    );
    expect(c.phoneColumn).toBe(2);
  });

  it('a first row of numbers is data', () => {
    const c = detectColumns(
      [
        ['Asha', '9800015838'],
        ['Ravi', '9800015839'],
      ],
      '91',
    );
    expect(c.hasHeader).toBe(false);
    expect(c.headers).toEqual(['column_1', 'column_2']);
    expect(c.phoneColumn).toBe(1);
  });

  it('a chosen column wins; no numbers anywhere gives -1', () => {
    const rows = [
      ['Phone', 'Alt'],
      ['9800015838', '9800015839'],
    ];
    expect(detectColumns(rows, '91', 'alt').phoneColumn).toBe(1);
    expect(
      detectColumns(
        [
          ['a', 'b'],
          ['c', 'd'],
        ],
        '91',
      ).phoneColumn,
    ).toBe(-1);
  });

  it('field keys are lower-case with underscores', () => {
    expect(fieldKey(' Home City ')).toBe('home_city');
    expect(fieldKey('E-mail')).toBe('email');
  });
});
