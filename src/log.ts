import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** Paths pino blanks in every log line: keys, cookies and secrets never reach a log. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  'api_key',
  '*.api_key',
  'secret',
  '*.secret',
  'webhook_secret',
  'token',
  '*.token',
  '*.webhook_secret',
];

export function loggerOptions(level: string): LoggerOptions {
  return { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
}

/** JSON lines to stdout, or to `destination` (tests capture logs this way). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}
