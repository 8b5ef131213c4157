/**
 * Separates the rows of a batch in each of its insert's parameters. Nothing a row is sent as
 * holds it: positions are digits, numbers and BSUIDs digits, letters and dots, tags hold no
 * control characters (tagsOfCell), and JSON text writes control characters as escapes.
 */
export const ROW_SEPARATOR = '\u001e';
const ROW_SEPARATOR_BYTE = 0x1e;
/** Joins a contact's tags in the text the import sends them as (tags hold no control characters). */
export const TAG_SEPARATOR = '\u001f';

/**
 * One column of a batch as the UTF-8 text its insert sends, rows separated by ROW_SEPARATOR,
 * in a buffer outside V8's heap that the next batch but one writes again.
 */
class ColumnText {
  private buf = Buffer.allocUnsafeSlow(16 * 1024);
  private end = 0;
  private rows = 0;

  add(text: string): void {
    // A UTF-16 unit is at most 3 bytes of UTF-8, and the separator 1.
    const most = this.end + 1 + 3 * text.length;
    if (most > this.buf.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(most, 2 * this.buf.length));
      this.buf.copy(bigger, 0, 0, this.end);
      this.buf = bigger;
    }
    if (this.rows++ > 0) this.buf[this.end++] = ROW_SEPARATOR_BYTE;
    this.end += this.buf.write(text, this.end);
  }

  /** The text written so far (the buffer itself: valid until the column is cleared). */
  text(): Buffer {
    return this.buf.subarray(0, this.end);
  }

  clear(): void {
    this.end = 0;
    this.rows = 0;
  }
}

/**
 * One insert's rows, column by column, each row already in the text it is sent as: its position,
 * its contact's number (or BSUID), its fields as JSON, its tags joined. A batch lives from its
 * first row read to its insert's answer, long enough for V8 to move what it holds on its heap to
 * the old generation, which then grows until its next full collection: held as one object per
 * row (each column then built by the driver element by element), the 10,00,000-row import of
 * bench/src/run.ts moved ~470 MB there and grew the process by ~350 MB. Its text is held
 * outside the heap instead, in buffers used again: an import keeps two batches (importContactList).
 */
export class Batch {
  private readonly positions = new ColumnText();
  private readonly phones = new ColumnText();
  private readonly fields = new ColumnText();
  private readonly tags = new ColumnText();
  length = 0;
  /** Characters of the batch's fields and tags (BATCH_CHARS). */
  chars = 0;

  add(position: number, phone: string, fields: Record<string, string>, tags: string[], chars: number): void {
    this.positions.add(String(position));
    this.phones.add(phone);
    this.fields.add(JSON.stringify(fields));
    this.tags.add(tags.join(TAG_SEPARATOR));
    this.length++;
    this.chars += chars;
  }

  /**
   * The insert's parameters, each column one text parameter (a Buffer: node-postgres sends it
   * as the text's bytes, PGlite as the text), valid until the batch is cleared.
   */
  params(): { positions: Buffer; phones: Buffer; fields: Buffer; tags: Buffer } {
    return {
      positions: this.positions.text(),
      phones: this.phones.text(),
      fields: this.fields.text(),
      tags: this.tags.text(),
    };
  }

  clear(): this {
    for (const column of [this.positions, this.phones, this.fields, this.tags]) column.clear();
    this.length = 0;
    this.chars = 0;
    return this;
  }
}
