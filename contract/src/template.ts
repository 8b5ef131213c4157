/**
 * Personalised text (docs/decisions.md, Personalised text), the same in the browser's preview and in
 * the server's acceptance: `{{field}}` inserts a recipient's field, `{{field|fallback}}` the
 * fallback when the field is empty, and `{a|b|c}` (spintax) picks one variant per recipient. Only
 * `{{` + a field name (letters, digits, `_`) + an optional `|fallback` + `}}` is a variable; only
 * `{…|…}` with at least one `|` and no nested braces is spintax; any other brace is text, and `\{`
 * (or `\}`) writes a literal brace.
 */

export type TemplatePart =
  | { kind: 'text'; text: string }
  | { kind: 'field'; name: string; fallback: string }
  | { kind: 'spin'; variants: string[] };

const VARIABLE = /^\{\{([A-Za-z0-9_]+)(?:\|([^{}]*))?\}\}/;
const SPINTAX = /^\{([^{}]*\|[^{}]*)\}/;

/** The text as its parts; adjacent text is joined. */
export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literal = '';
  const flush = () => {
    if (literal) parts.push({ kind: 'text', text: literal });
    literal = '';
  };
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '\\' && (text[i + 1] === '{' || text[i + 1] === '}')) {
      literal += text[i + 1];
      i += 2;
      continue;
    }
    if (c === '{') {
      const rest = text.slice(i);
      const v = VARIABLE.exec(rest);
      if (v) {
        flush();
        parts.push({ kind: 'field', name: v[1]!.toLowerCase(), fallback: v[2] ?? '' });
        i += v[0].length;
        continue;
      }
      const s = SPINTAX.exec(rest);
      if (s) {
        flush();
        parts.push({ kind: 'spin', variants: s[1]!.split('|') });
        i += s[0].length;
        continue;
      }
    }
    literal += c;
    i += 1;
  }
  flush();
  return parts;
}

/** Whether the text changes from one recipient to the next (a variable or spintax). */
export const isPersonalised = (parts: readonly TemplatePart[]): boolean =>
  parts.some((p) => p.kind !== 'text');

/** The field names the text uses, each once, in order of appearance. */
export const templateFields = (parts: readonly TemplatePart[]): string[] => [
  ...new Set(parts.flatMap((p) => (p.kind === 'field' ? [p.name] : []))),
];

/**
 * `{{first_name}}`, derived from `name` when a recipient has no field of that name (so that
 * `{{first_name}}` does not put 'Kumar, Arjun' in): the part after a comma ('Kumar, Arjun' → 'Arjun'), else the
 * first word ('Priya Sharma' → 'Priya').
 */
export const FIRST_NAME_FIELD = 'first_name';
export function firstNameOf(name: string | null | undefined): string {
  const full = (name ?? '').trim();
  const comma = full.indexOf(',');
  const given = comma >= 0 ? full.slice(comma + 1).trim() : full;
  return given.split(/\s+/)[0] ?? '';
}

/** The fields a text may use: `first_name` too wherever `name` is. */
export const withDerivedFields = (available: readonly string[]): string[] =>
  available.includes('name') && !available.includes(FIRST_NAME_FIELD)
    ? [...available, FIRST_NAME_FIELD]
    : [...available];

/**
 * The first field the text uses that is not available, as the error the send answers:
 * 'Unknown field {{city}} (available: name, area)'; null when every field is known.
 */
export function unknownFieldMessage(
  parts: readonly TemplatePart[],
  available: readonly string[],
): string | null {
  const known = new Set(withDerivedFields(available));
  const unknown = templateFields(parts).find((f) => !known.has(f));
  if (unknown === undefined) return null;
  return `Unknown field {{${unknown}}} (available: ${available.length ? available.join(', ') : 'none'})`;
}

/**
 * The text for one recipient. `pick(n)` chooses a spintax variant in [0, n) (random on the
 * server, fixed for a preview).
 */
export function renderTemplate(
  parts: readonly TemplatePart[],
  fields: Readonly<Record<string, string | null | undefined>>,
  pick: (n: number) => number,
): string {
  let out = '';
  for (const p of parts) {
    if (p.kind === 'text') out += p.text;
    else if (p.kind === 'field') {
      const own = fields[p.name];
      const value = (
        own == null && p.name === FIRST_NAME_FIELD && fields.name != null ? firstNameOf(fields.name) : own
      )?.trim();
      out += value ? value : p.fallback;
    } else out += p.variants[pick(p.variants.length)] ?? '';
  }
  return out;
}
