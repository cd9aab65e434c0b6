import type { RecordReader } from '../access/record-reader.js';
import { RecordsErrors } from '../errors.js';
import type { Queryable } from '../../platform/database/queryable.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity } from '../types.js';
import { stateJsonAt } from './history-repository.js';
import { readRestoreChange, restoreRecord } from './restore-record.js';

/**
 * `POST /{id}/restore` through every layer a PATCH of the same change passes, on `db` (the write's
 * transaction, begun with `writeSession`, access/write-guard.ts): the record must be readable (layers 2 and
 * 4 for read: a restore shows the restored state); its row is read and locked through the caller's
 * row filter (else 404) and compared with the state at `at`; the fields that differ are the
 * payload, checked by the update rules (with `record` the stored record) and the field write
 * filter (403 FIELD_WRITE_DENIED); RLS (layer 7) then checks the row the UPDATE writes (403
 * RLS_POLICY_DENIED when the restored row is outside what the caller may write). Returns the
 * restored record JSON, masked for the caller.
 */
export async function restoreAsCaller(
  db: Queryable,
  reader: RecordReader,
  identity: Identity,
  schema: CompiledSchema,
  id: string,
  at: string,
  reason: string,
): Promise<string> {
  const { access } = reader;
  await reader.requireReadable(db, identity, schema, id);
  const stateJson = await stateJsonAt(db, schema, id, at);
  if (stateJson === undefined) throw RecordsErrors.entityNotFound(schema.path, id);
  const state = JSON.parse(stateJson) as Record<string, unknown>;
  if (state.deleted_at !== null && state.deleted_at !== undefined)
    throw RecordsErrors.validation('The record was deleted at that instant', [
      { field: 'at', reason: 'pick an instant at which the record was live' },
    ]);
  const rowFilter = access.view(identity, schema, { mask: false }).rowFilter;
  const change = await readRestoreChange(db, schema, id, stateJson, rowFilter);
  if (!change) throw RecordsErrors.entityNotFound(schema.path, id);
  access.checkChange(identity, schema, 'update', change.current, change.changes);
  const restored = await restoreRecord(db, schema, identity.actor_id, id, stateJson, reason);
  if (restored === undefined) throw RecordsErrors.entityNotFound(schema.path, id);
  return access.maskJson(identity, schema, restored);
}
