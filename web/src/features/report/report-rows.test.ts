import {
  contentPreview,
  type MessageJob,
  messageText,
  parsePoll,
  REPORT_EXPORT_HEADERS,
  reportExportRow,
} from '@wa/contract';
import { describe, expect, it } from 'vitest';
import { buildJob } from '../../testing/factories.ts';
import { mediaView } from './media.ts';
import { parseDay, rangeBounds, rangeText } from './report-range.ts';
import { printedReport } from './report-rows.ts';

const job = buildJob;

const poll = JSON.stringify({
  pollName: 'Where shall we meet?',
  pollOptions: ['Park', 'Cafe'],
  options: { allowMultipleAnswers: true },
});

describe('previews', () => {
  it('cuts text at 15 characters', () => {
    expect(contentPreview(job({ messageContent: 'Hello' }))).toBe('Hello');
    expect(contentPreview(job({ messageContent: '123456789012345' }))).toBe('123456789012345');
    expect(contentPreview(job({ messageContent: '1234567890123456' }))).toBe('123456789012345...');
  });

  it('previews a poll by its question, parsed from the JSON', () => {
    expect(contentPreview(job({ messageType: 'poll', messageContent: poll }))).toBe('Where shall we ...');
    expect(parsePoll(poll)).toEqual({
      pollName: 'Where shall we meet?',
      pollOptions: ['Park', 'Cafe'],
      allowMultipleAnswers: true,
    });
    expect(parsePoll(JSON.stringify({ pollName: 'Q', pollOptions: ['a', 'b'] }))?.allowMultipleAnswers).toBe(
      false,
    );
    expect(parsePoll('not json')).toBeNull();
  });
});

describe('a template job', () => {
  const stored = (over: object = {}) =>
    JSON.stringify({
      name: 'diwali_sale',
      language: 'en',
      category: 'MARKETING',
      parameters: ['{{name|Customer}}', '20%'],
      bodyText: 'Hello {{1}}, {{2}} off this Diwali!',
      ...over,
    });

  it('shows its name and filled text on every screen and in the CSV, never its JSON', () => {
    const t = job({
      messageType: 'template',
      messageContent: stored(),
      templateCategory: 'marketing',
      costUnits: 8631,
    });
    expect(messageText(t)).toBe('diwali_sale: Hello {{name|Customer}}, 20% off this Diwali!');
    expect(contentPreview(t)).toBe('diwali_sale: He...');
    const row = reportExportRow(t, () => 'd');
    expect(row[7]).toBe('diwali_sale: He...');
    expect(row[13]).toBe('diwali_sale: Hello {{name|Customer}}, 20% off this Diwali!');
    expect(row.slice(14)).toEqual(['marketing', '0.8631']);
    expect(row.join(' ')).not.toContain('{"');
  });

  it('without its body (jobs stored before the body was kept) shows the name and each value', () => {
    const t = job({ messageType: 'template', messageContent: stored({ bodyText: undefined }) });
    expect(messageText(t)).toBe('diwali_sale (en): {{1}} = {{name|Customer}}, {{2}} = 20%');
  });
});

describe('the status column', () => {
  it('says the word the screens show: Partly sent, waiting, or the status', () => {
    const status = (over: Partial<MessageJob>) => reportExportRow(job(over), () => 'd')[8];
    expect(status({ status: 'failed' })).toBe('Partly sent');
    expect(status({ status: 'failed', results: { success: 0, failed: 3, delivered: 0, read: 0 } })).toBe(
      'failed',
    );
    expect(status({ status: 'processing', statusReason: 'Waiting: quiet hours until 09:00' })).toBe(
      'waiting',
    );
    expect(status({ status: 'processing' })).toBe('processing');
    expect(status({ status: 'completed', results: { success: 3, failed: 0, delivered: 0, read: 0 } })).toBe(
      'completed',
    );
  });
});

describe('date range', () => {
  it('sends the start of the From day and the end of the To day, in local time', () => {
    const b = rangeBounds({ from: '2026-11-20', to: '2026-11-21' });
    expect(b.from).toEqual(new Date(2026, 10, 20, 0, 0, 0, 0));
    expect(b.to).toEqual(new Date(2026, 10, 21, 23, 59, 59, 999));
  });

  it('leaves an empty end open', () => {
    expect(rangeBounds({ from: '2026-11-20', to: '' })).toEqual({ from: new Date(2026, 10, 20), to: null });
    expect(rangeBounds({ from: '', to: '' })).toEqual({ from: null, to: null });
  });
});

describe('the print view', () => {
  it('shows what mis_report.csv has: its columns, status, receipts, the whole content, and the totals line', () => {
    const printed = printedReport([
      job({
        messageContent: 'A long message for everyone',
        delivery: { delivered: 2, read: 1, replied: 0, undelivered: 0 },
      }),
      job({ id: 'job2', status: 'failed', results: { success: 0, failed: 3, delivered: 0, read: 0 } }),
    ]);
    expect(printed.headers).toEqual(REPORT_EXPORT_HEADERS);
    expect(printed.rows).toHaveLength(3);
    const [row, , totals] = printed.rows;
    expect(row).toHaveLength(REPORT_EXPORT_HEADERS.length);
    expect(row!.slice(0, 5)).toEqual(['job1', '919800000001', 3, 2, 1]);
    expect(row![6]).toBe('text');
    expect(row![7]).toBe('A long message ...');
    expect(row!.slice(8, 14)).toEqual(['completed', 2, 1, 0, 0, 'A long message for everyone']);
    expect(totals!.slice(0, 5)).toEqual(['Total', '', 6, 2, 4]);
    expect(totals![9]).toBe('2 (100.0%)');
    expect(printedReport([]).rows).toEqual([]);
  });
});

describe('mediaView', () => {
  const png = btoa(String.fromCharCode(0x89, 0x50, 0x4e, 0x47));

  it('tells missing, invalid and each kind of media apart', () => {
    expect(mediaView(null, 'image/png')).toEqual({ kind: 'none' });
    expect(mediaView('', 'image/png')).toEqual({ kind: 'none' });
    expect(mediaView('%%%not base64', 'image/png')).toEqual({ kind: 'invalid' });
    expect(mediaView('abc', 'image/png')).toEqual({ kind: 'invalid' });
    expect(mediaView(png, 'image/png')).toMatchObject({ kind: 'image', mime: 'image/png' });
    expect(mediaView(png, 'video/mp4')).toMatchObject({ kind: 'video' });
    expect(mediaView(png, 'audio/mpeg')).toMatchObject({ kind: 'audio' });
    expect(mediaView(png, 'application/pdf')).toMatchObject({ kind: 'other' });
  });

  it('decodes the bytes, and reads data URLs', () => {
    const v = mediaView(`data:image/gif;base64,${png}`, null);
    expect(v).toMatchObject({ kind: 'image', mime: 'image/gif' });
    expect(v.kind === 'image' && [...v.bytes]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });
});

describe('parseDay and rangeText (dates as en-IN writes them)', () => {
  it('reads dd/mm/yyyy and refuses days that do not exist', () => {
    expect(parseDay('05/03/2026')).toBe('2026-03-05');
    expect(parseDay('5-3-2026')).toBe('2026-03-05');
    expect(parseDay('31/02/2026')).toBeNull();
    expect(parseDay('2026-03-05')).toBeNull();
  });
  it('heads the print view with the range', () => {
    expect(rangeText({ from: '2026-11-01', to: '2026-11-23' })).toBe('From 01/11/2026 to 23/11/2026');
    expect(rangeText({ from: '2026-11-01', to: '' })).toBe('From 01/11/2026');
    expect(rangeText({ from: '', to: '2026-11-23' })).toBe('Up to 23/11/2026');
    expect(rangeText({ from: '', to: '' })).toBe('All dates');
  });
});
