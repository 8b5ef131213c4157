import { parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * The one phone rule of docs/decisions.md (Phone numbers), shared by the server's contact import and
 * the web's bulk page: numbers people type or upload are parsed with libphonenumber-js, the
 * default region given by DEFAULT_COUNTRY_CODE (a calling code such as '91'), and kept as
 * country code + digits ('919800015838').
 */
export type PhoneParse = { number: string } | { reason: 'empty' | 'invalid' };

/** Google Contacts writes several numbers of one contact into one cell, separated by `:::`. */
const MULTI = ':::';
/** A spreadsheet that stored the number as a float writes `919800015838.0` or `9.19800015838E+11`. */
const FLOAT_TAIL = /\.0+$/;
const EXPONENT = /^[0-9](\.[0-9]+)?e\+?[0-9]+$/i;

/** Marks a spreadsheet or a phone's export leaves in a cell: bidi controls, zero-width, BOM. */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;
/** A calling code in brackets at the start: '(+91)', '(0091)', '[+91]', '( 00 91 )'. */
const BRACKETED_CODE = /^[([]\s*(?:\+|00)\s*([1-9][0-9]{0,2})\s*[)\]]\s*[-.]?\s*/;

/**
 * Every layout of the calling code that spreadsheets produce, as `+<code> <rest>`: a cell forced
 * to text (`'+91…`, `="+91…"`), full-width digits and plus, no-break spaces, and the code in
 * brackets with `+` or `00` ('(0091) 98000 15838' was refused).
 */
export function normaliseCallingCode(text: string): string {
  let t = text
    .replace(INVISIBLE, '')
    .replace(/[\u00a0\u2007\u202f]/g, ' ')
    .replace(/[\uff10-\uff19]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xff10 + 48))
    .replace(/\uff0b/g, '+')
    .trim();
  const formula = /^=\s*"(.*)"$/.exec(t);
  if (formula) t = (formula[1] as string).trim();
  if (t.startsWith("'")) t = t.slice(1).trim();
  return t.replace(BRACKETED_CODE, '+$1 ');
}

/** The first number of a cell (Google Contacts' `+91 … ::: +91 …` gives its first), trimmed. */
export function firstNumberOfCell(cell: string): string {
  const at = cell.indexOf(MULTI);
  return (at === -1 ? cell : cell.slice(0, at)).trim();
}

/**
 * A cell as a stored number, or why not: 'empty' (nothing there), 'invalid' (not a number
 * libphonenumber-js accepts). `+`, `00` and national `0` prefixes, spaces, dashes and brackets
 * are handled; a number written with its country code but no `+` is accepted too.
 */
export function parsePhone(cell: string, defaultCallingCode: string): PhoneParse {
  let text = normaliseCallingCode(firstNumberOfCell(cell));
  if (text === '') return { reason: 'empty' };
  if (EXPONENT.test(text)) {
    const value = Number(text);
    if (!Number.isSafeInteger(value)) return { reason: 'invalid' };
    text = String(value);
  } else {
    text = text.replace(FLOAT_TAIL, '');
  }
  if (text.startsWith('00')) text = `+${text.slice(2)}`;
  // Eleven digits or more without `+` or a national `0` are most likely written with their
  // country code ('14155552671', '919800015838'): read them so first, then in the region.
  const digits = text.replace(/[^0-9]/g, '');
  const international = !text.startsWith('+') && digits.length >= 11 && !digits.startsWith('0');
  const attempts = international ? [`+${text}`, text] : [text];
  for (const attempt of attempts) {
    const parsed = parsePhoneNumberFromString(attempt, { defaultCallingCode });
    if (parsed?.isValid()) return { number: parsed.number.slice(1) };
  }
  return { reason: 'invalid' };
}

/** The stored number of a cell, or null. */
export function phoneOrNull(cell: string, defaultCallingCode: string): string | null {
  const result = parsePhone(cell, defaultCallingCode);
  return 'number' in result ? result.number : null;
}

/** What the rule says to a person, the same wherever a number enters (form, file, API). */
export const PHONE_TEXTS = {
  empty: 'Please enter a phone number',
  invalid: (input: string) => `Invalid phone number: ${input}`,
} as const;

/** A typed number as stored, or the message that says why it is not one. */
export function checkPhone(
  input: string,
  defaultCallingCode: string,
): { number: string } | { error: string } {
  const result = parsePhone(input, defaultCallingCode);
  if ('number' in result) return result;
  return { error: result.reason === 'empty' ? PHONE_TEXTS.empty : PHONE_TEXTS.invalid(input.trim()) };
}
