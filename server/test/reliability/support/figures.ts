import fs from 'node:fs';

/**
 * Figures of the reliability suite. Each test records what it measured; the global teardown
 * prints them as one table. `mustBeZero` figures fail their test when not zero, and are
 * marked in the table. A figure with a `below` goal (a time or a size, which depends on how
 * busy the machine is) is marked met or not in the table and counted at its end, but fails
 * no test: a timed assertion flakes on a busy machine, so the table is the measure.
 */
export type Figure = {
  section: string;
  name: string;
  value: number | string;
  mustBeZero: boolean;
  /** The goal: `measured` should stay below it. */
  below?: number;
  measured?: number;
};

export function recordFigure(
  section: string,
  name: string,
  value: number | string,
  mustBeZero = false,
): void {
  append({ section, name, value, mustBeZero });
}

/** A figure with a goal: `value` should stay below `below` (shown with `shown`, else `value`). */
export function recordGoal(
  section: string,
  name: string,
  value: number,
  below: number,
  shown: string = String(value),
): void {
  append({
    section,
    name: `${name} (goal < ${below})`,
    value: shown,
    mustBeZero: false,
    below,
    measured: value,
  });
}

/** One figure added to the suite's file (none when the suite's setup did not name one). */
function append(figure: Figure): void {
  const file = process.env.RELIABILITY_FIGURES_FILE;
  if (file) fs.appendFileSync(file, `${JSON.stringify(figure)}\n`);
}

/** Whether a goal figure met its goal (undefined for a figure without one). */
export function goalMet(f: Figure): boolean | undefined {
  if (f.below === undefined) return undefined;
  return Number(f.measured) < f.below;
}

export function readFigures(file: string): Figure[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Figure);
}
