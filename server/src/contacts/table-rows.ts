import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import { CsvRowReader, detectDelimiter, TableLimitError } from '@wa/contract';
import { badRequest } from '../errors.ts';
import { IMPORT_LIMITS, IMPORT_MESSAGES, NotATable, turnTaker } from './import-limits.ts';
import { xlsxRows } from './xlsx-rows.ts';

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/**
 * The rows of an uploaded file on disk: an .xlsx (a zip: `PK\x03\x04`) or a CSV. A row past the
 * column limit or a cell past the length limit is a 400 naming its row.
 */
export async function* rowsOfFile(file: string): AsyncGenerator<string[]> {
  const head = Buffer.alloc(4);
  const fh = await fs.open(file, 'r');
  try {
    await fh.read(head, 0, 4, 0);
  } finally {
    await fh.close();
  }
  try {
    yield* head.equals(ZIP_MAGIC)
      ? xlsxRows(file)
      : csvRows(createReadStream(file, { highWaterMark: 64 * 1024 }));
  } catch (e) {
    if (e instanceof TableLimitError)
      throw badRequest(
        e.kind === 'columns' ? IMPORT_MESSAGES.tooManyColumns(e.row) : IMPORT_MESSAGES.cellTooLong(e.row),
      );
    throw e;
  }
}

/**
 * Characters given to the CSV reader at once. It returns the rows a piece completes together,
 * and they are held until the import has taken the last of them, which may wait for an insert:
 * the rows of a 350 KB chunk (10,000) lived long enough to reach V8's old generation. A young
 * collection during that wait may also find most of the row arrays made since the last one
 * alive, and V8 then makes every later one in the old generation (allocation-site pretenuring):
 * with pieces of 8 K characters (~230 rows) about half the bench's imports grew RSS ~290 MB
 * instead of ~30, the old generation growing at every young collection as it does then. V8
 * judges a site only once it has made 100 objects since the last collection, and 1 K
 * characters hold fewer rows than that when each has a number.
 */
const PIECE_CHARS = 1024;

/** Text chunks of a CSV as rows: the delimiter is detected from the first chunk. */
export async function* csvRows(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder('utf-8');
  const turn = turnTaker();
  const limits = { maxColumns: IMPORT_LIMITS.maxColumns, maxCellChars: IMPORT_LIMITS.maxCellChars };
  let reader: CsvRowReader | null = null;
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    // No text file holds NUL bytes: a photo or an archive named .csv.
    if (text.includes('\u0000')) throw new NotATable();
    reader ??= new CsvRowReader(detectDelimiter(text.slice(0, 64 * 1024)), limits);
    for (let at = 0; at < text.length; at += PIECE_CHARS)
      yield* reader.push(text.slice(at, at + PIECE_CHARS));
    await turn();
  }
  if (reader) {
    yield* reader.push(decoder.decode());
    yield* reader.end();
  }
}
