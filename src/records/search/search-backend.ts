import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Queryable } from '../../platform/database/queryable.js';
import type { Condition, SortKey } from '../records/select-plan.js';

/** A schema-level search (`POST /{path}/search`), already validated. */
export interface SchemaSearch {
  q: string;
  where: Condition[];
  /** Sort keys; empty means best match first. `_text_match` is `textMatch`. */
  sort: (SortKey | { textMatch: true; descending: boolean })[];
  limit: number;
}

/**
 * A schema as one caller searches it: `schema` is the caller's view (its row filter, its record
 * JSON with unreadable fields null), `hidden` the fields whose text must not match, and `record`
 * asks org search for each hit's whole unmasked record (for record read rules).
 */
export interface SearchScope {
  schema: CompiledSchema;
  hidden: ReadonlySet<string>;
  record?: boolean;
}

/** Hits as record JSON texts carrying `_text_match`, and the total number of matches. */
export interface SearchPage {
  hits: string[];
  totalHits: number;
}

/** One hit of an org-wide search. */
export interface OrgHit {
  schema: string;
  id: string;
  fields: Record<string, unknown>;
  score: number;
  /** The whole record as stored, when the scope asked for it. */
  record?: Record<string, unknown>;
}

/**
 * Where full-text search runs. Postgres is built in; an external engine (Typesense) implements the
 * same interface and throws `RecordsErrors.searchUnavailable()` when it cannot be reached.
 */
export interface SearchBackend {
  /** `db`: where the caller's reads run (its access session); the backend's own pool otherwise. */
  search(scope: SearchScope, query: SchemaSearch, db?: Queryable): Promise<SearchPage>;
  searchOrg(scopes: SearchScope[], q: string, limit: number, db?: Queryable): Promise<OrgHit[]>;
}
