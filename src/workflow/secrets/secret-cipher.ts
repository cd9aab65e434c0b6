import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretsKey, SecretsKeyring } from './secrets-keyring.js';

/** A value as stored: the key that encrypted it, its nonce, and the ciphertext with the GCM tag appended. */
export interface SealedSecret {
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
}

const TAG_BYTES = 16;

/** Thrown when a stored value cannot be opened (unknown key id, or tampered with). Never carries the value. */
export class SecretDecryptionError extends Error {
  override readonly name = 'SecretDecryptionError';
}

// The value is bound to its org and name: a row copied to another org or name does not decrypt.
function associatedData(orgId: string, name: string): Buffer {
  return Buffer.from(`weft-secret:v1:${orgId}:${name}`, 'utf8');
}

/** Encrypts a value with AES-256-GCM under `key`, with a fresh random 96-bit nonce. */
export function sealSecret(key: SecretsKey, orgId: string, name: string, value: string): SealedSecret {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(orgId, name));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { keyId: key.id, nonce, ciphertext };
}

/** Decrypts a stored value with the keyring key named by its key id. */
export function openSecret(
  keyring: SecretsKeyring,
  orgId: string,
  name: string,
  sealed: SealedSecret,
): string {
  const key = keyring.byId.get(sealed.keyId);
  if (key === undefined) {
    throw new SecretDecryptionError(
      `secret '${name}' is encrypted with key ${sealed.keyId}, which is not configured (WORKFLOW_SECRETS_PREVIOUS_KEYS)`,
    );
  }
  try {
    const body = sealed.ciphertext.subarray(0, sealed.ciphertext.length - TAG_BYTES);
    const tag = sealed.ciphertext.subarray(sealed.ciphertext.length - TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, sealed.nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(orgId, name));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptionError(`secret '${name}' could not be decrypted (wrong key or altered data)`);
  }
}
