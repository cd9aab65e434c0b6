import { createHash } from 'node:crypto';
import { withTransaction, type Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { rlsStatements } from '../access/rls-ddl.js';
import { schemaChangePlan, schemaCreateStatements } from '../ddl/schema-ddl.js';
import { resourceCompanion } from '../auth/resource-companions.js';
import type { SecretEnvironment } from '../auth/secret-reference.js';
import type { RejectedDocument, ResourceDocument } from './resource-documents.js';
import {
  findResource,
  lockResourceWrites,
  setResourceOrigin,
  upsertResource,
} from './resource-repository.js';
import { validateSchemaDefinition } from './validate-definition.js';

/**
 * Where an applied document comes from: the service's watched folder (pruned when its file goes, see
 * prune-resources) or `weft records apply` (never pruned). The last writer owns a document.
 */
export type ResourceOrigin = 'folder' | 'apply';

/** How to apply a batch. */
export interface ApplyOptions {
  /** Recorded on every document of the batch; `apply` by default. */
  origin?: ResourceOrigin;
  /**
   * The environment of the service that will use the documents: secret references are checked
   * against it (and files read) before a document is stored. Absent (`weft records apply`, which
   * runs elsewhere), only their shape is checked; the service logs a reference it cannot resolve.
   */
  secrets?: SecretEnvironment;
}

/** What applying a batch of documents did. */
export interface ApplyReport {
  /** `kind/name` of each created or changed resource. */
  applied: string[];
  unchanged: string[];
  rejected: RejectedDocument[];
}

function contentHash(document: unknown): string {
  return createHash('sha256').update(JSON.stringify(document)).digest('hex');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Applies resource documents to the database: each SchemaDefinition creates its table or changes it
 * additively (a destructive change is refused and says to publish a new version), then the
 * document is stored. Each document commits on its own, so one bad document never affects the
 * others or the schemas already serving. AuthStrategy and RoleBinding documents are validated and
 * RoleBindings also stored in their table (see resource-companions).
 */
export async function applyResources(
  pool: Pool,
  documents: ResourceDocument[],
  logger?: Logger,
  options: ApplyOptions = {},
): Promise<ApplyReport> {
  const origin = options.origin ?? 'apply';
  const report: ApplyReport = { applied: [], unchanged: [], rejected: [] };
  const seen = new Map<string, string>();
  for (const resource of documents) {
    let name = resource.name;
    let ddl: (current: Record<string, unknown> | undefined) => {
      statements: string[];
      online: string[];
    } = () => ({
      statements: [],
      online: [],
    });
    if (resource.kind === 'SchemaDefinition') {
      const result = validateSchemaDefinition(resource.document.spec);
      if (!result.ok) {
        report.rejected.push(...result.problems.map((problem) => ({ source: resource.source, ...problem })));
        continue;
      }
      const definition = result.definition;
      name = definition.path;
      ddl = (current) => {
        const created = {
          statements: [...schemaCreateStatements(definition), ...rlsStatements(definition)],
          online: [],
        };
        if (!current) return created;
        const stored = validateSchemaDefinition(current.spec);
        if (!stored.ok) return created;
        const plan = schemaChangePlan(stored.definition, definition);
        if (!plan.ok) throw new RefusedChange(plan.reasons);
        return { statements: [...plan.statements, ...rlsStatements(definition)], online: plan.onlineIndexes };
      };
    }
    const companion = resourceCompanion(resource.kind, name, resource.document.spec, options.secrets);
    if (companion && companion.problems.length > 0) {
      report.rejected.push(...companion.problems.map((problem) => ({ source: resource.source, ...problem })));
      continue;
    }
    const key = `${resource.kind}/${name}`;
    const earlier = seen.get(key);
    if (earlier) {
      report.rejected.push({
        source: resource.source,
        path: 'spec',
        reason: `${key} is also defined in ${earlier}`,
      });
      continue;
    }
    seen.set(key, resource.source);
    const hash = contentHash(resource.document);
    try {
      const outcome = await withTransaction(pool, async (client) => {
        await lockResourceWrites(client);
        const stored = await findResource(client, resource.kind, name);
        if (stored?.content_hash === hash) {
          if (stored.origin !== origin)
            await setResourceOrigin(client, resource.kind, name, origin, resource.source);
          return { changed: false, online: [] };
        }
        const { statements, online } = ddl(stored?.document);
        for (const sql of statements) await client.query(sql);
        await upsertResource(client, {
          kind: resource.kind,
          name,
          document: resource.document,
          hash,
          source: resource.source,
          origin,
        });
        await companion?.write(client);
        return { changed: true, online };
      });
      if (!outcome.changed) {
        report.unchanged.push(key);
        continue;
      }
      for (const sql of outcome.online) {
        // Built outside the transaction so writes continue meanwhile.
        await pool
          .query(sql)
          .catch((error: unknown) =>
            logger?.warn({ resource: key, err: errorText(error) }, 'an index could not be built online'),
          );
      }
      report.applied.push(key);
    } catch (error) {
      const reasons = error instanceof RefusedChange ? error.reasons : [errorText(error)];
      report.rejected.push(...reasons.map((reason) => ({ source: resource.source, path: 'spec', reason })));
    }
  }
  return report;
}

class RefusedChange extends Error {
  constructor(readonly reasons: string[]) {
    super(reasons.join('; '));
  }
}
