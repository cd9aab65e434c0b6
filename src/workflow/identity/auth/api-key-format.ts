import { randomUrlSafe } from '../../../platform/crypto/tokens.js';

const keyPattern = /^ck_([A-Za-z0-9_-]{8})([A-Za-z0-9_-]{32})$/;

/** A freshly generated API key: the plaintext (shown once) and its lookup prefix. */
export interface GeneratedApiKey {
  plaintext: string;
  prefix: string;
}

/** `ck_` + 8 url-safe prefix characters + a body encoded from 24 random bytes. */
export function generateApiKey(): GeneratedApiKey {
  const prefix = randomUrlSafe(6);
  return { prefix, plaintext: `ck_${prefix}${randomUrlSafe(24)}` };
}

/** True when a bearer token must take the API-key path rather than the JWT path. */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith('ck_');
}

/** Splits a presented key into its prefix, or null when it is not a well-formed key. */
export function parseApiKey(token: string): { prefix: string } | null {
  const match = keyPattern.exec(token);
  return match?.[1] ? { prefix: match[1] } : null;
}
