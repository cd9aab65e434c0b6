import type { Config } from '../../platform/config/index.js';
import { ConfigError } from '../../platform/config/index.js';
import { readOrCreateDevelopmentSecret } from '../../platform/crypto/development-secret.js';
import type { Logger } from '../../platform/logging/logger.js';

/**
 * The JWT signing key: WORKFLOW_JWT_SIGNING_KEY, or outside production a key generated once into
 * WEFT_DATA_DIR (with a warning). Production refuses to start without the variable.
 */
export async function resolveJwtSigningKey(config: Config, logger: Logger): Promise<string> {
  if (config.workflow.jwtSigningKey !== undefined) return config.workflow.jwtSigningKey;
  if (config.production) {
    throw new ConfigError('WORKFLOW_JWT_SIGNING_KEY is required when NODE_ENV=production');
  }
  logger.warn(
    { dataDir: config.dataDir },
    'WORKFLOW_JWT_SIGNING_KEY is unset: using a development key kept in WEFT_DATA_DIR; set the variable in production',
  );
  return readOrCreateDevelopmentSecret(config.dataDir, 'workflow-jwt-signing-key');
}
