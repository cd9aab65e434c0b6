import type { WorkflowConfig } from '../../platform/config/index.js';
import { ConfigError } from '../../platform/config/index.js';
import { withTransaction, type Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { hashPassword } from './auth/passwords.js';
import { anyUserExists, insertUser } from './users/user-repository.js';

/** What bootstrap did, for tests and logs. */
export type BootstrapOutcome = 'users-exist' | 'admin-created' | 'no-users';

/**
 * First-boot bootstrap, exactly the spec's table. Runs after migrations and before the listener
 * binds; idempotent, and serialised by an advisory lock so two instances starting together create
 * one admin.
 */
export async function bootstrapWorkflow(
  pool: Pool,
  config: WorkflowConfig,
  logger: Logger,
): Promise<BootstrapOutcome> {
  if (config.bootstrapAdminOrgSlug !== undefined) {
    logger.warn(
      'WORKFLOW_BOOTSTRAP_ADMIN_ORG_SLUG is deprecated and ignored; create organisations with POST /api/v1/orgs',
    );
  }
  const email = config.bootstrapAdminEmail;
  const password = config.bootstrapAdminPassword;
  // Hash outside the transaction: argon2 is deliberately slow and must not hold the lock.
  const passwordHash =
    email !== undefined && password !== undefined ? await hashPassword(password) : undefined;
  const outcome = await withTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('weft.workflow.bootstrap'))`);
    if (await anyUserExists(client)) return 'users-exist' as const;
    if (email === undefined || passwordHash === undefined) return 'no-users' as const;
    await insertUser(client, {
      email,
      passwordHash,
      authProvider: 'internal',
      globalRoles: ['PlatformAdmin'],
    });
    return 'admin-created' as const;
  });
  switch (outcome) {
    case 'admin-created':
      logger.warn(
        { email },
        '*** BOOTSTRAP: created PlatformAdmin from WORKFLOW_BOOTSTRAP_ADMIN_EMAIL; change its password and unset WORKFLOW_BOOTSTRAP_ADMIN_PASSWORD ***',
      );
      break;
    case 'no-users':
      if (config.tenantIsolation === 'single') {
        throw new ConfigError(
          'WORKFLOW_TENANT_ISOLATION=single needs a first user: set WORKFLOW_BOOTSTRAP_ADMIN_EMAIL and WORKFLOW_BOOTSTRAP_ADMIN_PASSWORD',
        );
      }
      logger.warn(
        'no users exist and no bootstrap admin is configured: set WORKFLOW_BOOTSTRAP_ADMIN_EMAIL and WORKFLOW_BOOTSTRAP_ADMIN_PASSWORD to create one',
      );
      break;
    case 'users-exist':
      break;
  }
  return outcome;
}
