import Papa from 'papaparse';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  csvField,
  escapeHtml,
  exportCsv,
  guardFormula,
  PRINT_CLOSE_DELAY_MS,
  printHtml,
  printTable,
  toCsv,
} from './export.ts';

describe('guardFormula', () => {
  it.each(['=SUM(A1)', '+1', '-2', '@cmd', '\tx', '\rx'])('prefixes %j with a quote', (value) => {
    expect(guardFormula(value)).toBe(`'${value}`);
  });

  it('leaves other text alone', () => {
    expect(guardFormula('Family 1')).toBe('Family 1');
    expect(guardFormula('a=b')).toBe('a=b');
    expect(guardFormula('')).toBe('');
  });
});

describe('csvField', () => {
  it('quotes commas, quotes and line breaks (RFC 4180)', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField('plain')).toBe('plain');
  });

  it('guards formulas before quoting, and keeps numbers as they are', () => {
    expect(csvField('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvField(-5)).toBe('-5');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });
});

describe('toCsv', () => {
  it('starts with a BOM, ends lines with CRLF, and parses back to the same cells', () => {
    const csv = toCsv(
      ['Name', 'Count'],
      [
        [`<b>Bold</b> & "Quoted" Friends' Club`, 3],
        ['=1+1', 4],
      ],
    );
    expect(csv.startsWith('\uFEFFName,Count\r\n')).toBe(true);
    expect(csv.endsWith('\r\n')).toBe(true);
    const parsed = Papa.parse<string[]>(csv.slice(1), { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toEqual([
      ['Name', 'Count'],
      [`<b>Bold</b> & "Quoted" Friends' Club`, '3'],
      ["'=1+1", '4'],
    ]);
  });
});

describe('escapeHtml and printHtml', () => {
  it('escapes every markup character', () => {
    expect(escapeHtml(`<b>"x" & 'y'</b>`)).toBe('&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;');
    expect(escapeHtml(7)).toBe('7');
  });

  it('puts no raw markup from the data into the document', () => {
    const html = printHtml('Title <i>', ['Group Name'], [['<script>alert(1)</script>']]);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<i>');
    const doc = new DOMParser().parseFromString(html, 'text/html');
    expect(doc.querySelector('h1')?.textContent).toBe('Title <i>');
    expect(doc.querySelector('td')?.textContent).toBe('<script>alert(1)</script>');
    expect(doc.querySelector('th')?.textContent).toBe('Group Name');
  });
});

describe('exportCsv', () => {
  let alert: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    alert = vi.fn();
    vi.stubGlobal('alert', alert);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("alerts 'No data to export' when there are no rows", () => {
    expect(exportCsv('x.csv', ['A'], [])).toBe(false);
    expect(alert).toHaveBeenCalledWith('No data to export');
  });

  it('downloads a CSV file with the given name', async () => {
    let blob: Blob | undefined;
    const createObjectURL = vi.fn((b: Blob) => {
      blob = b;
      return 'blob:test';
    });
    const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
    URL.createObjectURL = createObjectURL;
    URL.revokeObjectURL = vi.fn();
    const clicked: { name: string; href: string }[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicked.push({ name: this.download, href: this.getAttribute('href') ?? '' });
    });
    expect(exportCsv('report.csv', ['A'], [['1']])).toBe(true);
    expect(clicked).toEqual([{ name: 'report.csv', href: 'blob:test' }]);
    expect(blob?.type).toBe('text/csv;charset=utf-8');
    const bytes = new Uint8Array(await blob!.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(alert).not.toHaveBeenCalled();
    click.mockRestore();
    URL.createObjectURL = original.create;
    URL.revokeObjectURL = original.revoke;
  });
});

describe('printTable', () => {
  let alert: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    alert = vi.fn();
    vi.stubGlobal('alert', alert);
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("alerts 'No data to print' when there are no rows", () => {
    const open = vi.fn();
    vi.stubGlobal('open', open);
    expect(printTable('T', ['A'], [])).toBe(false);
    expect(alert).toHaveBeenCalledWith('No data to print');
    expect(open).not.toHaveBeenCalled();
  });

  it('writes the escaped view, prints it, and closes it about 500 ms later', () => {
    const written: string[] = [];
    const view = {
      document: { open: vi.fn(), write: (s: string) => written.push(s), close: vi.fn() },
      focus: vi.fn(),
      print: vi.fn(),
      close: vi.fn(),
    };
    vi.stubGlobal(
      'open',
      vi.fn(() => view),
    );
    expect(printTable('MIS Report', ['Job ID'], [['<b>j1</b>']])).toBe(true);
    expect(written.join('')).toContain('<td class="short">&lt;b&gt;j1&lt;/b&gt;</td>');
    expect(view.print).toHaveBeenCalledOnce();
    expect(view.close).not.toHaveBeenCalled();
    vi.advanceTimersByTime(PRINT_CLOSE_DELAY_MS - 1);
    expect(view.close).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(view.close).toHaveBeenCalledOnce();
  });
});
