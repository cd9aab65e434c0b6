import { readFile, stat } from 'node:fs/promises';
import type { Config } from '../../platform/config/index.js';
import type { Logger } from '../../platform/logging/logger.js';
import { createApiKey } from '../auth/api-keys.js';
import { scopeTokenPattern } from '../auth/scopes/token-scopes.js';
import { ensureSchemaDdl } from '../ddl/ensure-schema-ddl.js';
import { applyResources, type ApplyReport } from '../schemas/apply-resources.js';
import { parseResourceText, readResourceDirectory } from '../schemas/resource-documents.js';
import { openRecordsDatabase } from './records-database.js';

const durationUnits: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** Parses `30d`, `12h`, `90m`, `3600s` or `2w` into seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  if (!match?.[1] || !match[2])
    throw new Error(`Invalid duration ${JSON.stringify(text)}: use e.g. 30d, 12h, 90m`);
  return Number(match[1]) * (durationUnits[match[2]] ?? 1);
}

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
  options: { actor: string; roles: string; ttl?: string; allow?: string[]; scope?: string[] },
): Promise<{ id: string; plaintext: string; expiresAt: Date | null }> {
  const scopes = (options.scope ?? []).flatMap((scope) => scope.split(' ')).filter(Boolean);
  const badScope = scopes.find((scope) => !new RegExp(scopeTokenPattern).test(scope));
  if (badScope !== undefined) throw new Error(`--scope ${JSON.stringify(badScope)} is not a scope token`);
  const roles = options.roles
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  if (options.actor.trim() === '') throw new Error('--actor must not be empty');
  const ttlSeconds = options.ttl === undefined ? undefined : parseDuration(options.ttl);
  const database = await openRecordsDatabase(config, logger);
  try {
    return await createApiKey(database.pool, {
      actor: options.actor,
      roles,
      ...(ttlSeconds !== undefined ? { ttlSeconds } : {}),
      ...(options.allow ? { allowedCidrs: options.allow } : {}),
      ...(scopes.length > 0 ? { scopes } : {}),
    });
  } finally {
    await database.close();
  }
}
