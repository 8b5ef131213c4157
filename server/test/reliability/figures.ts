import fs from 'node:fs';

/**
 * Figures of the reliability suite. Each test records what it measured; the global teardown
 * prints them as one table. `mustBeZero` figures fail their test when not zero, and are
 * marked in the table.
 */
export type Figure = { section: string; name: string; value: number | string; mustBeZero: boolean };

export function recordFigure(
  section: string,
  name: string,
  value: number | string,
  mustBeZero = false,
): void {
  const file = process.env.RELIABILITY_FIGURES_FILE;
  if (!file) return;
  fs.appendFileSync(file, `${JSON.stringify({ section, name, value, mustBeZero } satisfies Figure)}\n`);
}

export function readFigures(file: string): Figure[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Figure);
}
