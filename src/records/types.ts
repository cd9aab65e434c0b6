/**
 * Glossary of the records service.
 *
 * - **schema path**: `org/app/domain/object/version`, the URL prefix of one schema version's API.
 * - **schema definition**: a `kind: SchemaDefinition` document; one per schema path.
 * - **record**: a row of a schema version's table, with system fields and the schema's fields.
 * - **actor**: who is calling (`Identity.actor_id`), the unit of rate limits and idempotency keys.
 * - **operation**: `create`, `read`, `update` or `delete`, the unit of `spec.access.roles`.
 * - **token scope**: a scope a credential grants (JWT `scope`/`scp`, an API key's scopes); a strategy's
 *   `requiredScopes` asks for some per scoped operation (src/records/auth/scopes/). Not the `scope` map
 *   of a RoleBinding.
 */

/** Field types a schema may declare. */
export const fieldTypes = [
  'string',
  'integer',
  'number',
  'boolean',
  'timestamp',
  'date',
  'json',
  'enum',
  'uuid',
] as const;

/** One field type. */
export type FieldType = (typeof fieldTypes)[number];

/** A field of a schema definition (`spec.fields[]`). */
export interface FieldDefinition {
  name: string;
  type: FieldType;
  required: boolean;
  unique: boolean;
  default?: unknown;
  enum?: string[];
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  searchable: boolean;
  filterable: boolean;
  sortable: boolean;
  /** Schema path of the schema this uuid field points at (the `include` parameter joins it). */
  references?: string;
}

/** Operations that `spec.access.roles` grants. */
export type Operation = 'create' | 'read' | 'update' | 'delete';

/** A validated `kind: SchemaDefinition`. */
export interface SchemaDefinition {
  /** `org/app/domain/object/version`. */
  path: string;
  org: string;
  app: string;
  domain: string;
  object: string;
  version: string;
  displayName: string;
  description: string;
  timeMachine: boolean;
  searchTier: number;
  fields: FieldDefinition[];
  /** `spec.access`, validated (see `src/records/access/`). */
  access: AccessSection;
  /** `spec.archive`: what the archive job moves to cold storage (docs/records/archive.md). */
  archive?: ArchiveSpec;
  /** `spec.indexes`: btree indexes over several fields, beside those the field flags make. */
  indexes?: SchemaIndex[];
}

/** A declared index: its fields in order (the record id is appended so pages are stable). */
export interface SchemaIndex {
  fields: string[];
}

/**
 * `spec.archive`: records whose `updated_at` is at least `afterDays` days old and that match
 * `condition` (a query DSL `where`; every record when absent) are moved to cold storage.
 */
export interface ArchiveSpec {
  afterDays: number;
  condition?: unknown;
  /** Days an archived record is kept after its archival; kept for ever when unset. */
  retainDays?: number;
}

/** Who is calling, after authentication. */
export interface Identity {
  actor_id: string;
  roles: string[];
  attributes: Record<string, unknown>;
  /** RoleBinding scope (e.g. region, store ids); absent when none. */
  scope?: Record<string, unknown>;
}

/** An ABAC rule (`spec.access.abac[]`): a CEL condition that must hold for the operation. */
export interface AbacRule {
  operation: Operation;
  condition: string;
  message: string;
}

/** A row filter (`spec.access.rowFilter[]`): an SQL condition limiting the rows a role sees. */
export interface RowFilterRule {
  role: string;
  condition: string;
  message: string;
}

/** Field permissions (`spec.access.fieldAccess[]`); an absent list leaves that side open. */
export interface FieldAccessRule {
  field: string;
  read?: string[];
  write?: string[];
}

/** `spec.access` of a schema definition: the rules of access layers 1 to 7. */
export interface AccessSection {
  roles?: Partial<Record<Operation, string[]>>;
  abac: AbacRule[];
  rowFilter: RowFilterRule[];
  fieldAccess: FieldAccessRule[];
}

/** System fields every record carries, in output order. */
export const systemFields = [
  'id',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
  'version',
  'deleted_at',
] as const;
