import { useResource } from '../shared/use-resource.js';
import { api } from './session.js';

/** A field type of the records service. */
export type FieldType =
  'string' | 'integer' | 'number' | 'boolean' | 'timestamp' | 'date' | 'json' | 'enum' | 'uuid';

/** A field as `GET /api/{path}/_schema` describes it, with what the caller may read and write. */
export interface FieldDescription {
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
  references?: string;
  readable: boolean;
  writable: boolean;
}

/** `GET /api/{path}/_schema`: a schema as the signed-in caller sees it. */
export interface SchemaDescription {
  path: string;
  displayName: string;
  description: string;
  timeMachine: boolean;
  searchTier: number;
  fields: FieldDescription[];
  operations: { create: boolean; read: boolean; update: boolean; delete: boolean };
  filterOperators: string[];
}

/** A record as the API answers it: system fields plus the schema's fields. */
export type RecordData = Record<string, unknown> & { id: string; version: number };

/** The API URL of a schema's records. */
export const recordsUrl = (path: string) => `/api/${path}`;

/** Loads a schema's description (cached per path while the page lives). */
export function useSchemaDescription(path: string) {
  return useResource(`schema:${path}`, (signal) =>
    api.get<{ data: SchemaDescription }>(`${recordsUrl(path)}/_schema`, { signal }).then((r) => r.data),
  );
}

/** A value as text for a table cell or a form input (JSON for objects). */
export function displayValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
}

/** Constraints of a field in words, for hints beside inputs and the schemas page. */
export function constraintsOf(field: FieldDescription): string[] {
  const notes: string[] = [];
  if (field.required) notes.push('required');
  if (field.unique) notes.push('unique');
  if (field.enum) notes.push(`one of ${field.enum.join(', ')}`);
  if (field.min !== undefined) notes.push(`min ${field.min}`);
  if (field.max !== undefined) notes.push(`max ${field.max}`);
  if (field.minLength !== undefined) notes.push(`at least ${field.minLength} characters`);
  if (field.maxLength !== undefined) notes.push(`at most ${field.maxLength} characters`);
  if (field.pattern) notes.push(`pattern ${field.pattern}`);
  if (field.default !== undefined) notes.push(`default ${displayValue(field.default)}`);
  if (field.references) notes.push(`refers to ${field.references}`);
  return notes;
}
