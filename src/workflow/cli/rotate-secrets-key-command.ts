import type { Config } from '../../platform/config/index.js';
import type { Logger } from '../../platform/logging/logger.js';
import { rotateSecretsKey, type RotationReport } from '../secrets/rotate-key.js';
import { resolveSecretsKeyring } from '../secrets/secrets-keyring.js';
import { openWorkflowDatabase } from './workflow-database.js';

/**
 * `weft workflow rotate-secrets-key`: re-encrypts every stored secret under WORKFLOW_SECRETS_KEY,
 * reading older values with the keys of WORKFLOW_SECRETS_PREVIOUS_KEYS.
 */
export async function rotateSecretsKeyCommand(config: Config, logger: Logger): Promise<RotationReport> {
  const keyring = await resolveSecretsKeyring(config, logger);
  const database = await openWorkflowDatabase(config, logger);
  try {
    return await rotateSecretsKey(database.pool, keyring);
  } finally {
    await database.close();
  }
}
