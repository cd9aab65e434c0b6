import { readFile, stat } from 'node:fs/promises';
import type { Config } from '../../platform/config/index.js';
import { withTransaction, type Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import {
  createApiKey,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  type ApiKeySummary,
  type IssuedApiKey,
} from '../auth/api-keys.js';
import { parseDuration } from '../auth/duration.js';
import { isScopeToken } from '../auth/scopes/token-scopes.js';
import { ensureSchemaDdl } from '../ddl/ensure-schema-ddl.js';
import { applyResources, type ApplyReport } from '../schemas/apply-resources.js';
import { parseResourceText, readResourceDirectory } from '../schemas/resource-documents.js';
import { openRecordsDatabase } from './records-database.js';

/**
 * `weft records apply -f FILE`: applies the documents of a file (or every file of a folder) to the
 * records database; a running service picks the change up within seconds. Returns the report; the
 * caller exits non-zero when anything was rejected.
 */
export async function applyCommand(config: Config, logger: Logger, file: string): Promise<ApplyReport> {
  const parsed = (await stat(file)).isDirectory()
    ? await readResourceDirectory(file)
    : parseResourceText(await readFile(file, 'utf8'), file);
  const database = await openRecordsDatabase(config, logger);
  try {
    const report = await applyResources(database.pool, parsed.documents, logger);
    await ensureSchemaDdl(database.pool, logger);
    report.rejected.unshift(...parsed.rejected);
    return report;
  } finally {
    await database.close();
  }
}

/** `weft records api-key create`: stores a key and returns its plaintext (shown once). */
export async function createApiKeyCommand(
  config: Config,
  logger: Logger,
  options: { actor: string; roles: string; ttl?: string; allow?: string[]; scope?: string[]; label?: string },
): Promise<IssuedApiKey> {
  const scopes = (options.scope ?? []).flatMap((scope) => scope.split(' ')).filter(Boolean);
  const badScope = scopes.find((scope) => !isScopeToken(scope));
  if (badScope !== undefined) throw new Error(`--scope ${JSON.stringify(badScope)} is not a scope token`);
  const roles = options.roles
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  if (options.actor.trim() === '') throw new Error('--actor must not be empty');
  const ttlSeconds = options.ttl === undefined ? undefined : parseDuration(options.ttl);
  return withRecordsDatabase(config, logger, (pool) =>
    createApiKey(pool, {
      actor: options.actor,
      roles,
      createdBy: 'cli',
      ...(ttlSeconds !== undefined ? { ttlSeconds } : {}),
      ...(options.allow ? { allowedCidrs: options.allow } : {}),
      ...(scopes.length > 0 ? { scopes } : {}),
      ...(options.label !== undefined ? { label: options.label } : {}),
    }),
  );
}

/** `weft records api-key list`: the keys that still work (all with `--all`), newest first, without hashes. */
export function listApiKeysCommand(
  config: Config,
  logger: Logger,
  options: { actor?: string; all?: boolean },
): Promise<ApiKeySummary[]> {
  return withRecordsDatabase(config, logger, (pool) =>
    listApiKeys(pool, {
      ...(options.actor !== undefined ? { actor: options.actor } : {}),
      includeInactive: options.all ?? false,
    }),
  );
}

/** `weft records api-key revoke ID`: refused from the next request on, on every instance. */
export async function revokeApiKeyCommand(
  config: Config,
  logger: Logger,
  id: string,
): Promise<'revoked' | 'already'> {
  assertKeyId(id);
  const outcome = await withRecordsDatabase(config, logger, (pool) => revokeApiKey(pool, id, 'cli'));
  if (outcome === 'missing') throw new Error(`No API key ${id}`);
  return outcome;
}

/** `weft records api-key rotate ID [--grace D] [--ttl D]`: a new key (plaintext shown once); the old one is revoked or expires after the grace period. */
export async function rotateApiKeyCommand(
  config: Config,
  logger: Logger,
  id: string,
  options: { grace?: string; ttl?: string },
): Promise<IssuedApiKey & { oldUntil: Date | null }> {
  assertKeyId(id);
  const graceSeconds = options.grace === undefined ? undefined : parseDuration(options.grace);
  const ttlSeconds = options.ttl === undefined ? undefined : parseDuration(options.ttl);
  const rotated = await withRecordsDatabase(config, logger, (pool) =>
    withTransaction(pool, (client) =>
      rotateApiKey(client, id, {
        rotatedBy: 'cli',
        ...(graceSeconds !== undefined ? { graceSeconds } : {}),
        ...(ttlSeconds !== undefined ? { ttlSeconds } : {}),
      }),
    ),
  );
  if (!rotated) throw new Error(`No working, unrotated API key ${id}`);
  return rotated;
}

function assertKeyId(id: string): void {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    throw new Error(`${JSON.stringify(id)} is not an API key id (a UUID from \`weft records api-key list\`)`);
}

async function withRecordsDatabase<T>(
  config: Config,
  logger: Logger,
  work: (pool: Pool) => Promise<T>,
): Promise<T> {
  const database = await openRecordsDatabase(config, logger);
  try {
    return await work(database.pool);
  } finally {
    await database.close();
  }
}
