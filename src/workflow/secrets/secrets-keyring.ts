import { createHash } from 'node:crypto';
import type { Config } from '../../platform/config/index.js';
import { ConfigError } from '../../platform/config/index.js';
import { readOrCreateDevelopmentSecret } from '../../platform/crypto/development-secret.js';
import type { Logger } from '../../platform/logging/logger.js';

/** An AES-256 key and the id stored beside every value it encrypts. */
export interface SecretsKey {
  id: string;
  bytes: Buffer;
}

/** The key new values are encrypted with, and every key values may still be encrypted with, by id. */
export interface SecretsKeyring {
  current: SecretsKey;
  byId: ReadonlyMap<string, SecretsKey>;
}

/** A key's id: the first 16 hex digits of a SHA-256 over it (it identifies, it does not reveal). */
export function secretsKeyId(bytes: Buffer): string {
  return createHash('sha256').update('weft-secrets-key-id:').update(bytes).digest('hex').slice(0, 16);
}

/** Decodes a base64 key, refusing anything but 32 bytes; `variable` names it in the error. */
export function parseSecretsKey(base64: string, variable: string): SecretsKey {
  const bytes = Buffer.from(base64.trim(), 'base64');
  if (bytes.length !== 32 || bytes.toString('base64') !== base64.trim()) {
    throw new ConfigError(
      `${variable} must be 32 bytes encoded in base64 (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  return { id: secretsKeyId(bytes), bytes };
}

/** Builds a keyring from a current key and earlier ones. */
export function createKeyring(current: SecretsKey, previous: readonly SecretsKey[] = []): SecretsKeyring {
  const byId = new Map<string, SecretsKey>();
  for (const key of previous) byId.set(key.id, key);
  byId.set(current.id, current);
  return { current, byId };
}

/**
 * The secrets keyring: WORKFLOW_SECRETS_KEY (and WORKFLOW_SECRETS_PREVIOUS_KEYS), or outside
 * production a key generated once into WEFT_DATA_DIR (with a warning). Production refuses to start
 * without the variable.
 */
export async function resolveSecretsKeyring(config: Config, logger: Logger): Promise<SecretsKeyring> {
  const { key, previousKeys } = config.workflow.secrets;
  const previous = previousKeys.map((text) => parseSecretsKey(text, 'WORKFLOW_SECRETS_PREVIOUS_KEYS'));
  if (key !== undefined) return createKeyring(parseSecretsKey(key, 'WORKFLOW_SECRETS_KEY'), previous);
  if (config.production) {
    throw new ConfigError('WORKFLOW_SECRETS_KEY is required when NODE_ENV=production');
  }
  logger.warn(
    { dataDir: config.dataDir },
    'WORKFLOW_SECRETS_KEY is unset: using a development key kept in WEFT_DATA_DIR; set the variable in production',
  );
  // The stored text is random; its SHA-256 is the 32-byte key.
  const seed = await readOrCreateDevelopmentSecret(config.dataDir, 'workflow-secrets-key');
  const bytes = createHash('sha256').update(seed).digest();
  return createKeyring({ id: secretsKeyId(bytes), bytes }, previous);
}
