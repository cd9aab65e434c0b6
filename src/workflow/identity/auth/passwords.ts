import { hash, verify } from '@node-rs/argon2';
import { randomUrlSafe } from '../../../platform/crypto/tokens.js';

// Algorithm.Argon2id; a const enum, which isolated modules cannot import.
const argon2id = 2;
const options = { algorithm: argon2id } as const;

/** Hashes a password with argon2id (library defaults: 19 MiB, 2 passes, OWASP's recommendation). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

/** Verifies a password against a stored argon2 hash; false for a malformed hash. */
export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  try {
    return await verify(storedHash, password, options);
  } catch {
    return false;
  }
}

/**
 * A hash of a random password, verified against when the email is unknown or cannot log in, so a
 * failed login takes as long whether or not the account exists.
 */
export function createDecoyHash(): Promise<string> {
  return hashPassword(randomUrlSafe(24));
}
