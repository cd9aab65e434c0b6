import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** `bytes` random bytes as url-safe base64 without padding. */
export function randomUrlSafe(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/** HMAC-SHA256 of `value` under `key`. */
export function hmacSha256(key: Buffer, value: string): Buffer {
  return createHmac('sha256', key).update(value, 'utf8').digest();
}

/** Compares two byte strings in time that does not depend on where they differ. */
export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
