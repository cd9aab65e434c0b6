import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** A worker id unique to this process and instance: `hostname-pid-random`. */
export function defaultWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}
