/** Numbers (or ids) typed in a box: one a line, or separated by commas or semicolons; blanks dropped. */
export const recipientLines = (text: string): string[] =>
  text
    .split(/[\n,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);
