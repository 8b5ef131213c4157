import pino from 'pino';
import type { Config } from './config.ts';

export function createLogger(config: Pick<Config, 'logLevel'>) {
  return pino({ level: config.logLevel });
}
