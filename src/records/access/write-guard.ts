import type { PoolClient } from '../../platform/database/pool.js';
import type { Queryable } from '../../platform/database/queryable.js';
import { RecordsErrors } from '../errors.js';
import { statement } from '../records/statement.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity, Operation } from '../types.js';
import type { AccessControl } from './access-control.js';
import { beginAccessSession } from './access-session.js';
import { checkFieldWrites } from './field-access.js';

/**
 * Wraps a write so that it passes layers 2 and 6 (and runs in an access session when the schema
 * has row security): the ABAC rules that need no record run now; inside the write's transaction
 * the stored record is read and locked when a rule needs it, then the field write filter runs.
 * `begin` is what the write pipeline runs first in the transaction, or undefined when the write
 * needs no transaction of its own.
 */
export function guardWrite<T>(
  access: AccessControl,
  identity: Identity,
  schema: CompiledSchema,
  operation: Exclude<Operation, 'read'>,
  target: { id?: string; payload?: Record<string, unknown> },
  execute: (db: Queryable) => Promise<T>,
): { execute: (db: Queryable) => Promise<T>; begin?: (client: PoolClient) => Promise<void> } {
  access.checkBefore(identity, schema, operation, target.payload);
  const recordRules = access.hasRecordRules(schema, operation);
  const guarded = async (db: Queryable) => {
    if (recordRules && target.id !== undefined) {
      const view = access.view(identity, schema, { mask: false });
      const { rows } = await db.query<{ j: string }>(statement(`${view.readSql} FOR UPDATE`, [target.id]));
      if (!rows[0]) throw RecordsErrors.entityNotFound(schema.path, target.id);
      access.checkRecord(
        identity,
        schema,
        operation,
        JSON.parse(rows[0].j) as Record<string, unknown>,
        target.payload,
      );
    }
    if (target.payload) checkFieldWrites(identity, schema, target.payload);
    return execute(db);
  };
  if (access.needsSession(schema))
    return { execute: guarded, begin: (client) => beginAccessSession(client, identity) };
  if (recordRules) return { execute: guarded, begin: () => Promise.resolve() };
  return { execute: guarded };
}

/**
 * What a write's transaction runs first when the write is guarded inside it rather than by
 * `guardWrite` (restore): the access session on a schema with row security, so RLS (layer 7)
 * checks the rows it changes as the caller; nothing otherwise.
 */
export function writeSession(
  access: AccessControl,
  identity: Identity,
  schema: CompiledSchema,
): (client: PoolClient) => Promise<void> {
  return access.needsSession(schema)
    ? (client) => beginAccessSession(client, identity)
    : () => Promise.resolve();
}
