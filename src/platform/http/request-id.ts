import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const acceptableRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/** Uses the caller's `X-Request-ID` when it is a sane token, otherwise a fresh UUID. */
export function requestIdFor(request: IncomingMessage): string {
  const header = request.headers['x-request-id'];
  const candidate = Array.isArray(header) ? header[0] : header;
  return candidate !== undefined && acceptableRequestId.test(candidate) ? candidate : randomUUID();
}
