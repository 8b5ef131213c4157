import pino from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.ts';

type Output = NodeJS.WritableStream & { isTTY?: boolean };

/**
 * Pretty, coloured lines for a person at a terminal; JSON lines for a log collector.
 * `LOG_FORMAT` overrides the guess made from whether stdout is a terminal.
 */
export function createLogger(
  config: Pick<Config, 'logLevel'> & Partial<Pick<Config, 'logFormat'>>,
  output: Output = process.stdout,
) {
  const format = config.logFormat ?? (output.isTTY ? 'pretty' : 'json');
  if (format === 'json')
    return output === process.stdout
      ? pino({ level: config.logLevel })
      : pino({ level: config.logLevel }, output);
  return pino(
    { level: config.logLevel },
    pretty({
      destination: output,
      colorize: !!output.isTTY,
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
    }),
  );
}
