import { withTransaction, type Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { revokeRoleBinding } from '../role-bindings/role-binding-repository.js';
import type { ResourceDocument } from './resource-documents.js';
import {
  deleteFolderResource,
  detachFolderResource,
  listFolderResources,
  lockResourceWrites,
} from './resource-repository.js';

/** What one pruning pass did: `kind/name` of each deleted resource and of each schema left in place. */
export interface PruneReport {
  pruned: string[];
  /** SchemaDefinitions whose file is gone: never pruned (their table and data stay), marked `detached`. */
  detached: string[];
}

/** The `kind/name` under which each document is stored (a schema's name is its path). */
export function declaredKeys(documents: readonly ResourceDocument[]): Set<string> {
  const keys = new Set<string>();
  for (const document of documents) {
    if (document.kind !== 'SchemaDefinition') {
      keys.add(`${document.kind}/${document.name}`);
      continue;
    }
    // An invalid schema document still declares its path (the stored version keeps serving).
    const spec = (document.document.spec ?? {}) as Record<string, unknown>;
    const parts = ['org', 'app', 'domain', 'object', 'version'].map((part) => spec[part]);
    if (parts.every((part) => typeof part === 'string')) keys.add(`SchemaDefinition/${parts.join('/')}`);
  }
  return keys;
}

/**
 * Makes the folder the declared state: every AuthStrategy and RoleBinding that was applied from the
 * folder (origin `folder`) and is no longer declared in it is deleted, a RoleBinding exactly as
 * `DELETE /api/platform/role-bindings/{name}` does (revoked, its actor in the revocation set, its
 * document gone). A SchemaDefinition is never pruned: dropping a table because a file vanished would
 * lose data, so it keeps serving and is marked `detached`. Resources applied with `weft records
 * apply` are never touched. The caller decides whether the folder may be trusted (not empty, every
 * file read); one log line per pruned or detached resource.
 */
export async function pruneResources(
  pool: Pool,
  declared: ReadonlySet<string>,
  logger: Logger,
): Promise<PruneReport> {
  const report: PruneReport = { pruned: [], detached: [] };
  const rows = await listFolderResources(pool);
  for (const row of rows) {
    const key = `${row.kind}/${row.name}`;
    if (declared.has(key)) continue;
    const done = await withTransaction(pool, async (client) => {
      await lockResourceWrites(client);
      if (row.kind === 'SchemaDefinition') return detachFolderResource(client, row.kind, row.name);
      // Still the folder's? Another instance may have pruned it, or `weft records apply` taken it over.
      if (!(await deleteFolderResource(client, row.kind, row.name))) return false;
      if (row.kind === 'RoleBinding') await revokeRoleBinding(client, row.name, false);
      return true;
    });
    if (!done) continue;
    if (row.kind === 'SchemaDefinition') {
      report.detached.push(key);
      logger.warn(
        { resource: key, file: row.source },
        'schema file gone from the resources folder: the schema keeps serving and its data is kept (schemas are never pruned)',
      );
    } else {
      report.pruned.push(key);
      logger.warn(
        { resource: key, file: row.source },
        'resource pruned: its file is gone from the resources folder',
      );
    }
  }
  return report;
}
