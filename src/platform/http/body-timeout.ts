import { PassThrough, type Readable } from 'node:stream';

/** The error a body that did not arrive in time fails with (a 408 to the error handler). */
export class BodyTimeoutError extends Error {
  override readonly name = 'BodyTimeoutError';
  readonly statusCode = 408;
  readonly code = 'WEFT_BODY_TIMEOUT';

  constructor(readonly timeoutMs: number) {
    super(`The request body did not arrive within ${timeoutMs} ms`);
  }
}

/**
 * Passes `payload` (a request body stream) through unchanged, unless all of it has not arrived
 * within `timeoutMs`: then reading stops, `onTimeout` runs (the caller marks the connection for
 * closing) and the stream fails with a BodyTimeoutError. A client that announces a body and never
 * sends it (or sends it a byte at a time) cannot hold a connection and a request slot for long.
 */
export function withBodyDeadline(payload: Readable, timeoutMs: number, onTimeout: () => void): Readable {
  const timed = new PassThrough();
  const timer = setTimeout(() => {
    payload.unpipe(timed);
    payload.pause();
    onTimeout();
    timed.destroy(new BodyTimeoutError(timeoutMs));
  }, timeoutMs);
  const stop = () => clearTimeout(timer);
  // Whoever reads the body listens too; this keeps a failure after the answer from going uncaught.
  timed.on('error', () => undefined);
  timed.once('end', stop);
  timed.once('close', stop);
  payload.once('error', (error) => {
    stop();
    timed.destroy(error);
  });
  payload.pipe(timed);
  return timed;
}
