import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * An Ed25519 signing key (e.g. `RECORDS_AUDIT_SIGNING_KEY`, which signs audit checkpoints). The
 * private key stays inside this object: nothing here returns, logs or throws its material. The
 * public key can be published so anyone can check signatures without the service.
 */
export class Ed25519Signer {
  /** First 16 hex digits of SHA-256 over the public key (SPKI DER). */
  readonly keyId: string;
  /** The public key, PEM (SPKI). */
  readonly publicKeyPem: string;
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;

  private constructor(privateKey: KeyObject) {
    this.#privateKey = privateKey;
    this.#publicKey = createPublicKey(privateKey);
    this.publicKeyPem = this.#publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const der = this.#publicKey.export({ type: 'spki', format: 'der' });
    this.keyId = createHash('sha256').update(der).digest('hex').slice(0, 16);
  }

  /** The signer of a PEM private key; undefined when the text is not an Ed25519 private key. */
  static fromPem(pem: string): Ed25519Signer | undefined {
    let key: KeyObject;
    try {
      key = createPrivateKey(pem);
    } catch {
      // The parser's message may quote the input: it is dropped, never rethrown.
      return undefined;
    }
    return key.asymmetricKeyType === 'ed25519' ? new Ed25519Signer(key) : undefined;
  }

  /** The Ed25519 signature of `data`, base64. */
  sign(data: string): string {
    return sign(null, Buffer.from(data, 'utf8'), this.#privateKey).toString('base64');
  }

  /** Whether `signature` (base64) is this key's signature of `data`. */
  verify(data: string, signature: string): boolean {
    return verify(null, Buffer.from(data, 'utf8'), this.#publicKey, Buffer.from(signature, 'base64'));
  }

  /** Never the key: a signer printed or logged by accident shows only its id. */
  toJSON(): Record<string, string> {
    return { keyId: this.keyId };
  }
}

/** Reads PEM text from the environment, where line breaks are often written as `\n`. */
export function pemFromEnvironment(value: string): string {
  return value.includes('\\n') ? value.replace(/\\n/g, '\n') : value;
}
