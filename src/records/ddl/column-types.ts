import type { FieldType } from '../types.js';

/** The Postgres column type of each field type. */
export const columnTypes: Record<FieldType, string> = {
  string: 'text',
  integer: 'bigint',
  number: 'numeric',
  boolean: 'boolean',
  timestamp: 'timestamptz',
  date: 'date',
  json: 'jsonb',
  enum: 'text',
  uuid: 'uuid',
};
