/** Deeper JSON than this is refused before it is parsed (no request of this API nests past 4). */
export const MAX_JSON_DEPTH = 32;
/** An array with more items than this is refused before it is parsed. */
export const MAX_JSON_ARRAY_ITEMS = 1_000_000;

const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * One pass over the raw text, before JSON.parse: the reason to refuse it (too deep, an array
 * too long), or null. Parsing a hostile body first (28 MB of nesting) held the event loop for
 * seconds; this pass costs about a millisecond per megabyte and stops at the first excess.
 */
export function jsonShapeProblem(text: string): string | null {
  // Per open container: whether it is an array, and how many commas it has seen.
  const isArray = new Uint8Array(MAX_JSON_DEPTH + 2);
  const commas = new Uint32Array(MAX_JSON_DEPTH + 2);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      depth++;
      if (depth > MAX_JSON_DEPTH)
        return `The request is nested too deeply (more than ${MAX_JSON_DEPTH} levels)`;
      isArray[depth] = c === OPEN_ARRAY ? 1 : 0;
      commas[depth] = 0;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth > 0) depth--;
    } else if (c === COMMA && depth > 0 && isArray[depth] === 1) {
      commas[depth]! += 1;
      if (commas[depth]! >= MAX_JSON_ARRAY_ITEMS)
        return `The request has a list longer than ${MAX_JSON_ARRAY_ITEMS.toLocaleString('en-US')} items`;
    }
  }
  return null;
}
