import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildServerOnce } from '../../server-build.ts';
import { goalMet, readFigures } from './figures.ts';

/** The server build the suite's processes run (server-build.ts); the figures table at the end. */
export default async function setup() {
  const removeBuild = await buildServerOnce();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wa-reliability-')), 'figures.jsonl');
  process.env.RELIABILITY_FIGURES_FILE = file;
  return () => {
    removeBuild();
    const figures = readFigures(file);
    const width = Math.max(20, ...figures.map((f) => f.section.length));
    const nameWidth = Math.max(30, ...figures.map((f) => f.name.length));
    const lines = [
      '',
      'Reliability and security figures',
      `${'section'.padEnd(width)}  ${'figure'.padEnd(nameWidth)}  value   must be 0 / goal`,
      `${'-'.repeat(width)}  ${'-'.repeat(nameWidth)}  ------  ----------------`,
    ];
    let bad = 0;
    let missed = 0;
    for (const f of figures) {
      const met = goalMet(f);
      const flag = f.mustBeZero
        ? Number(f.value) === 0
          ? 'yes: ok'
          : 'yes: FAIL'
        : met === undefined
          ? ''
          : met
            ? 'goal met'
            : 'goal NOT met';
      if (f.mustBeZero && Number(f.value) !== 0) bad += 1;
      if (met === false) missed += 1;
      lines.push(
        `${f.section.padEnd(width)}  ${f.name.padEnd(nameWidth)}  ${String(f.value).padEnd(6)}  ${flag}`,
      );
    }
    lines.push(
      '',
      `${figures.filter((f) => f.mustBeZero).length - bad} must-be-zero figures at zero, ${bad} not`,
      `${figures.filter((f) => f.below !== undefined).length - missed} goals met, ${missed} not (goals are times and sizes: read them with the machine's load)`,
      '',
    );
    console.log(lines.join('\n'));
  };
}
