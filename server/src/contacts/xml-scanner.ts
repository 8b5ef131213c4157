/**
 * A small incremental XML tokenizer for the parts of an .xlsx (sheet, shared strings, styles):
 * feed text chunks, get tags and text through callbacks. It keeps only an unfinished tag
 * between chunks, so a 178 MB sheet is read in constant memory. Namespace prefixes are dropped
 * (`x:row` is `row`); comments, processing instructions and DOCTYPEs are skipped (no entity is
 * ever expanded); CDATA comes through as text.
 */
export type XmlHandler = {
  open(name: string, attrs: string, selfClosing: boolean): void;
  close(name: string): void;
  /** Raw text (entities still encoded: see decodeXmlText). */
  text(raw: string): void;
};

/** Longer than any tag a spreadsheet writes: a longer one is not a spreadsheet. */
const MAX_PENDING = 64 * 1024;

export class XmlTooLarge extends Error {}

export class XmlScanner {
  private rest = '';

  constructor(private readonly handler: XmlHandler) {}

  push(chunk: string): void {
    const s = this.rest === '' ? chunk : this.rest + chunk;
    const h = this.handler;
    const n = s.length;
    let i = 0;
    while (i < n) {
      const lt = s.indexOf('<', i);
      if (lt === -1) {
        h.text(s.slice(i));
        i = n;
        break;
      }
      if (lt > i) h.text(s.slice(i, lt));
      i = lt;
      const next = s.charCodeAt(lt + 1);
      if (next === 33 /* ! */) {
        if (s.startsWith('<![CDATA[', lt)) {
          const end = s.indexOf(']]>', lt + 9);
          if (end === -1) break;
          h.text(escapeXmlText(s.slice(lt + 9, end)));
          i = end + 3;
          continue;
        }
        const closer = s.startsWith('<!--', lt) ? '-->' : '>';
        const end = s.indexOf(closer, lt + 2);
        if (end === -1) break;
        i = end + closer.length;
        continue;
      }
      const gt = s.indexOf('>', lt + 1);
      if (gt === -1) break;
      if (next === 63 /* ? */) {
        i = gt + 1;
        continue;
      }
      if (next === 47 /* / */) {
        h.close(localName(s.slice(lt + 2, gt).trim()));
      } else {
        const selfClosing = s.charCodeAt(gt - 1) === 47;
        const body = s.slice(lt + 1, selfClosing ? gt - 1 : gt);
        const space = body.search(/\s/);
        const name = space === -1 ? body : body.slice(0, space);
        h.open(localName(name), space === -1 ? '' : body.slice(space), selfClosing);
      }
      i = gt + 1;
    }
    this.rest = i < n ? s.slice(i) : '';
    if (this.rest.length > MAX_PENDING) throw new XmlTooLarge();
  }
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

function escapeXmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the five named entities and numeric references; anything else is kept as written. */
export function decodeXmlText(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (all, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
    }
    return NAMED[ref] ?? all;
  });
}

const attributePatterns = new Map<string, RegExp>();

/** The value of attribute `name` (without prefix) in a tag's attribute text, or undefined. */
export function attribute(attrs: string, name: string): string | undefined {
  let pattern = attributePatterns.get(name);
  if (!pattern) {
    pattern = new RegExp(`(?:^|\\s)(?:[\\w.-]+:)?${name}\\s*=\\s*("([^"]*)"|'([^']*)')`);
    attributePatterns.set(name, pattern);
  }
  const m = pattern.exec(attrs);
  return m ? decodeXmlText(m[2] ?? m[3] ?? '') : undefined;
}
