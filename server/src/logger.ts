import { createRequire } from 'node:module';
import pino from 'pino';
import type { Config } from './config.ts';

type Output = NodeJS.WritableStream & { isTTY?: boolean };

const SECRET_FIELDS =
  'password|passwordHash|password_hash|token|otp|secret|totpSecret|authorization|private|privKey|noiseKey|signedIdentityKey|advSecretKey|value';

/**
 * Every log line is scrubbed before it is written: password hashes, bearer tokens, secret-named
 * JSON fields (auth state, codes), Meta's webhook verify token in a logged URL and a failed
 * query's parameters never reach the log.
 */
export function scrubLogLine(line: string): string {
  return line
    .replace(/\$argon2[a-z]*\$[^"\s\\,]*/g, '[redacted]')
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]')
    .replace(/(hub(?:\.|%2e)verify_token=)[^&"\s\\]*/gi, '$1[redacted]')
    .replace(new RegExp(`("(?:${SECRET_FIELDS})":)"(?:[^"\\\\]|\\\\.)*"`, 'g'), '$1"[redacted]"')
    .replace(/(params: )(?:[^"\\]|\\.)*/g, '$1[redacted]');
}

const hooks = { streamWrite: scrubLogLine };

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
      ? pino({ level: config.logLevel, hooks })
      : pino({ level: config.logLevel, hooks }, output);
  // Loaded only for a terminal's lines: a server writing JSON never loads the pretty-printer.
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pino(
    { level: config.logLevel, hooks },
    pretty({
      destination: output,
      colorize: !!output.isTTY,
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
    }),
  );
}
