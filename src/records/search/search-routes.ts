import type { HttpServer } from '../../platform/http/http-server.js';
import { checkPlanFields, type AccessControl } from '../access/access-control.js';
import type { RecordReader } from '../access/record-reader.js';
import { hiddenFields } from '../access/field-access.js';
import { identityOf } from '../auth/request-identity.js';
import { RecordsErrors } from '../errors.js';
import { successBody } from '../http/envelope.js';
import { schemaBase, schemaRequest } from '../http/schema-request.js';
import { parseLimit } from '../records/select-plan.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import type { Identity } from '../types.js';
import type { OrgHit, SearchBackend, SearchScope } from './search-backend.js';
import { parseSearchBody } from './search-request.js';
import '../auth/scopes/scoped-operations.js';

/** What the search routes need. */
export interface SearchRouteDependencies {
  registry: SchemaRegistry;
  access: AccessControl;
  reader: RecordReader;
  backend: SearchBackend;
}

/** An org-wide hit as the API shows it (the field-filter hook for search outputs). */
export function presentOrgHit(hit: OrgHit): Record<string, unknown> {
  return { schema: hit.schema, id: hit.id, fields: hit.fields };
}

/**
 * How `identity` searches `schema` (access layers 4 and 5): through its view (row filter; masked
 * JSON unless record read rules must first see whole records), never matching text it may not read.
 */
function scopeOf(access: AccessControl, identity: Identity, schema: CompiledSchema): SearchScope {
  const recordRules = access.hasRecordReadRules(schema);
  return {
    schema: access.view(identity, schema, { mask: !recordRules }),
    hidden: new Set(hiddenFields(schema.definition.access, identity.roles)),
    record: recordRules,
  };
}

const searchRoute = {
  schema: { hide: true },
  config: { recordsRateLimit: 'search' as const, recordsScope: 'search' as const },
};

/**
 * `POST /{path}/search` (search tier 3) and `GET /{org}/search?q=` (every tier 2 and 3 schema of
 * the org the caller may read), both on the search rate limit.
 */
export function registerSearchRoutes(app: HttpServer, deps: SearchRouteDependencies): void {
  const { registry, access, reader, backend } = deps;
  const { prepare } = schemaRequest(registry, access);

  app.post(`${schemaBase}/search`, searchRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'search');
    if (schema.definition.searchTier < 3)
      throw RecordsErrors.validation(`${schema.path} is at search tier ${schema.definition.searchTier}`, [
        { field: 'searchTier', reason: 'full-text search needs search tier 3' },
      ]);
    const query = parseSearchBody(schema, request.body);
    const identity = identityOf(request);
    access.checkBefore(identity, schema, 'read');
    checkPlanFields(identity, schema, {
      where: query.where,
      sort: query.sort.flatMap((key) => ('textMatch' in key ? [] : [key])),
    });
    const started = performance.now();
    const scope = scopeOf(access, identity, schema);
    const page = await reader.read(identity, [schema], (db) => backend.search(scope, query, db));
    page.hits = access.finishRecords(identity, schema, page.hits);
    const stats = { total_hits: page.totalHits, took_ms: Math.round(performance.now() - started) };
    return reply
      .type('application/json')
      .send(successBody(`[${page.hits.join(',')}]`, request.id, `,"search_stats":${JSON.stringify(stats)}`));
  });

  app.get('/api/:org/search', searchRoute, async (request, reply) => {
    const { org } = request.params as { org: string };
    const query = request.query as Record<string, unknown>;
    for (const key of Object.keys(query))
      if (key !== 'q' && key !== 'limit')
        throw RecordsErrors.validation(`Unknown parameter ${key.slice(0, 100)}`, [
          { field: key.slice(0, 100), reason: 'org search takes q and limit' },
        ]);
    if (typeof query.q !== 'string' || query.q.trim() === '' || query.q.length > 500)
      throw RecordsErrors.validation('Invalid q', [
        { field: 'q', reason: 'must be a non-empty search text' },
      ]);
    const limit = parseLimit(query.limit);
    const identity = identityOf(request);
    const schemas = registry.all().filter((schema) => {
      if (schema.definition.org !== org || schema.definition.searchTier < 2) return false;
      try {
        access.authorize(identity, schema, 'read');
        access.checkBefore(identity, schema, 'read');
        return true;
      } catch {
        return false;
      }
    });
    const scopes = schemas.map((schema) => scopeOf(access, identity, schema));
    const q = query.q;
    const hits = await reader.read(identity, schemas, (db) => backend.searchOrg(scopes, q, limit, db));
    const byPath = new Map(schemas.map((schema) => [schema.path, schema]));
    // Org search spans schemas: a hit its record read rules deny is left out rather than failing
    // the whole search.
    const shown = hits.filter((hit) => {
      const schema = byPath.get(hit.schema);
      return !hit.record || (schema !== undefined && access.allowsRecord(identity, schema, hit.record));
    });
    return reply
      .type('application/json')
      .send(successBody(JSON.stringify(shown.map(presentOrgHit)), request.id));
  });
}
