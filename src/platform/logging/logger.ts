import { pino, type DestinationStream, type Logger } from 'pino';

/** Logger used across weft (pino). */
export type { Logger } from 'pino';

/**
 * Paths that may hold a credential. pino replaces them before a line is written, so a password,
 * token or key cannot reach the logs even if a future change logs a request body by mistake.
 */
export const redactedPaths = [
  'password',
  '*.password',
  'current_password',
  '*.current_password',
  'new_password',
  '*.new_password',
  'plaintext_key',
  '*.plaintext_key',
  'access_token',
  '*.access_token',
  'signingKey',
  '*.signingKey',
  'value',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

/** Creates the root logger. `destination` lets tests capture every line. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { pid: process.pid },
    },
    destination,
  );
}
