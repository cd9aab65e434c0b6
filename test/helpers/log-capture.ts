import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/platform/logging/logger.js';

/** A logger whose every line is kept in memory, to assert on what was (and was not) logged. */
export interface CapturedLogs {
  logger: Logger;
  lines: string[];
  /** All captured output as one string. */
  text(): string;
  /** Parsed lines whose `msg` matches. */
  messages(pattern: RegExp): Record<string, unknown>[];
}

/** Creates a capturing logger at `level`. */
export function captureLogs(level = 'trace'): CapturedLogs {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  const logger = createLogger(level, stream);
  return {
    logger,
    lines,
    text: () => lines.join('\n'),
    messages: (pattern) =>
      lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => typeof entry.msg === 'string' && pattern.test(entry.msg)),
  };
}
