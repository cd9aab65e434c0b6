import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity } from '../types.js';
import { maskRecord } from './field-access.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Layer 5 on a history or audit event as presented: the fields of its `old_value` and `new_value`
 * that `identity` may not read are null. Without a schema (an audit event of a schema no longer
 * loaded) the rules are unknown, so both values are withheld (null) rather than shown.
 */
export function maskChange(
  identity: Identity,
  schema: CompiledSchema | undefined,
  event: Record<string, unknown>,
): Record<string, unknown> {
  const masked = { ...event };
  for (const key of ['old_value', 'new_value'])
    if (isRecord(masked[key])) masked[key] = schema ? maskRecord(identity, schema, masked[key]) : null;
  return masked;
}
