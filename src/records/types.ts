/**
 * Glossary of the records service.
 *
 * - **schema path**: `org/app/domain/object/version`, the URL prefix of one schema version's API.
 * - **schema definition**: a `kind: SchemaDefinition` document; one per schema path.
 * - **record**: a row of a schema version's table, with system fields and the schema's fields.
 * - **actor**: who is calling (`Identity.actor_id`), the unit of rate limits and idempotency keys.
 * - **operation**: `create`, `read`, `update` or `delete`, the unit of `spec.access.roles`.
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
  /** `spec.access` as written; only `roles` is enforced by this service so far. */
  access: { roles?: Partial<Record<Operation, string[]>> } & Record<string, unknown>;
  archive?: Record<string, unknown>;
}

/** Who is calling, after authentication. */
export interface Identity {
  actor_id: string;
  roles: string[];
  attributes: Record<string, unknown>;
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
