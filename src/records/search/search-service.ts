import { checkPlanFields, type AccessControl } from '../access/access-control.js';
import { hiddenFields } from '../access/field-access.js';
import type { RecordReader } from '../access/record-reader.js';
import { RecordsErrors } from '../errors.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import type { Identity } from '../types.js';
import type { OrgHit, SchemaSearch, SearchBackend, SearchScope } from './search-backend.js';

/** What the search service needs. */
export interface SearchServiceDependencies {
  registry: SchemaRegistry;
  access: AccessControl;
  reader: RecordReader;
  backend: SearchBackend;
}

/** An org-wide hit as the API shows it (the field-filter hook for search outputs). */
export function presentOrgHit(hit: OrgHit): Record<string, unknown> {
  return { schema: hit.schema, id: hit.id, fields: hit.fields };
}

/** 400 unless the schema is at search tier 3 (full-text search). */
export function requireFullTextSearch(schema: CompiledSchema): void {
  if (schema.definition.searchTier < 3)
    throw RecordsErrors.validation(`${schema.path} is at search tier ${schema.definition.searchTier}`, [
      { field: 'searchTier', reason: 'full-text search needs search tier 3' },
    ]);
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

/** Full-text search of one schema and across an org, through the caller's access layers. */
export class SearchService {
  constructor(private readonly deps: SearchServiceDependencies) {}

  /** A search of one schema: its hits (record JSON texts) as the caller may see them. */
  async search(
    identity: Identity,
    schema: CompiledSchema,
    query: SchemaSearch,
  ): Promise<{ hits: string[]; totalHits: number; tookMs: number }> {
    const { access, reader, backend } = this.deps;
    access.checkBefore(identity, schema, 'read');
    checkPlanFields(identity, schema, {
      where: query.where,
      sort: query.sort.flatMap((key) => ('textMatch' in key ? [] : [key])),
    });
    const started = performance.now();
    const scope = scopeOf(access, identity, schema);
    const page = await reader.read(identity, [schema], (db) => backend.search(scope, query, db));
    page.hits = access.finishRecords(identity, schema, page.hits);
    return { hits: page.hits, totalHits: page.totalHits, tookMs: Math.round(performance.now() - started) };
  }

  /** A search of every tier 2 and 3 schema of `org` the caller may read, best hits first. */
  async searchOrg(identity: Identity, org: string, q: string, limit: number): Promise<OrgHit[]> {
    const { registry, access, reader, backend } = this.deps;
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
    const hits = await reader.read(identity, schemas, (db) => backend.searchOrg(scopes, q, limit, db));
    const byPath = new Map(schemas.map((schema) => [schema.path, schema]));
    // Org search spans schemas: a hit its record read rules deny is left out rather than failing
    // the whole search.
    return hits.filter((hit) => {
      const schema = byPath.get(hit.schema);
      return !hit.record || (schema !== undefined && access.allowsRecord(identity, schema, hit.record));
    });
  }
}
