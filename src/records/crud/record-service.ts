import type { AccessControl, IncludePlan } from '../access/access-control.js';
import type { RecordReader } from '../access/record-reader.js';
import { guardWrite } from '../access/write-guard.js';
import { isArchivedId } from '../archive/archive-repository.js';
import { RecordsErrors } from '../errors.js';
import { successBody } from '../http/envelope.js';
import type { CursorCodec } from '../records/cursor.js';
import type { ExactValues } from '../records/exact-values.js';
import { insertRecord, patchRecord, softDeleteRecord } from '../records/record-repository.js';
import type { RecordPage } from '../records/select-records.js';
import type { SelectPlan } from '../records/select-plan.js';
import type { RecordWrite, WritePipeline, WriteResult } from '../records/write-pipeline.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity } from '../types.js';
import type { Queryable } from '../../platform/database/queryable.js';

/** What the record service needs. */
export interface RecordServiceDependencies {
  access: AccessControl;
  reader: RecordReader;
  pipeline: WritePipeline;
  cursors: CursorCodec;
  /** Whether `id` is a record archived to files (the archive's file sets); none when unset. */
  archivedInFiles?: (schema: CompiledSchema, id: string) => Promise<boolean>;
}

const recordIdInJson = /^\{"id" ?: ?"([0-9a-f-]{36})"/;

/**
 * Create, read, update, delete, list and query of a schema's records: each read goes through the
 * record reader (every read layer), each write through the write guard (layers 2 and 6, the access
 * session for layer 7) and the write pipeline (idempotency, one transaction when needed).
 */
export class RecordService {
  constructor(private readonly deps: RecordServiceDependencies) {}

  /** Creates a record from a validated body; 201 with the record. */
  create(
    write: RecordWrite,
    body: Record<string, unknown>,
    exact: ExactValues | undefined,
  ): Promise<WriteResult> {
    const { access, pipeline } = this.deps;
    const { identity, schema } = write;
    const clientId = body.id !== undefined;
    const guarded = guardWrite(access, identity, schema, 'create', { payload: body }, async (db) => {
      const json = await insertRecord(db, access.view(identity, schema), identity.actor_id, body, exact);
      const id = recordIdInJson.exec(json)?.[1] ?? '';
      // The id of an archived record stays taken: a new record in its place would hide it from
      // everyone. Checked after the insert, in its transaction, so an archival that commits in
      // between is seen.
      if (clientId && (await this.isArchived(db, schema, id))) throw RecordsErrors.uniqueViolation('id');
      return { recordId: id, response: { status: 201, body: successBody(json, write.requestId) } };
    });
    return pipeline.run({
      schema,
      identity,
      operation: 'create',
      idempotency: write.idempotency(),
      transactional: clientId,
      ...guarded,
    });
  }

  private async isArchived(db: Queryable, schema: CompiledSchema, id: string): Promise<boolean> {
    return (await isArchivedId(db, schema, id)) || ((await this.deps.archivedInFiles?.(schema, id)) ?? false);
  }

  /** A page of a list or query (`includes`: the records its reference fields name). */
  readPage(
    identity: Identity,
    schema: CompiledSchema,
    plan: SelectPlan,
    includes: IncludePlan[] = [],
  ): Promise<{ page: RecordPage; included?: string }> {
    return this.deps.reader.readPage(identity, schema, plan, this.deps.cursors, includes);
  }

  /** One record and its includes; 404 when the caller cannot see it. */
  async read(
    identity: Identity,
    schema: CompiledSchema,
    id: string,
    includes: IncludePlan[],
  ): Promise<{ json: string; included?: string }> {
    const read = await this.deps.reader.readOne(identity, schema, id, includes);
    if (read.json === undefined) throw RecordsErrors.entityNotFound(schema.path, id);
    return { json: read.json, ...(read.included !== undefined ? { included: read.included } : {}) };
  }

  /** Changes the fields of `changes` when the record is at `version`; 200 with the record. */
  update(
    write: RecordWrite,
    id: string,
    version: number,
    changes: Record<string, unknown>,
    exact: ExactValues | undefined,
  ): Promise<WriteResult> {
    const { access, pipeline } = this.deps;
    const { identity, schema } = write;
    const guarded = guardWrite(access, identity, schema, 'update', { id, payload: changes }, async (db) => {
      const view = access.view(identity, schema);
      const outcome = await patchRecord(db, view, identity.actor_id, id, version, changes, exact);
      if ('missing' in outcome) throw RecordsErrors.entityNotFound(schema.path, id);
      if ('currentVersion' in outcome)
        throw RecordsErrors.optimisticLock(id, version, outcome.currentVersion);
      const json = access.maskJson(identity, schema, outcome.updated);
      return { recordId: id, response: { status: 200, body: successBody(json, write.requestId) } };
    });
    return pipeline.run({
      schema,
      identity,
      operation: 'update',
      idempotency: write.idempotency(),
      ...guarded,
    });
  }

  /** Soft-deletes a record; 204. */
  delete(write: RecordWrite, id: string): Promise<WriteResult> {
    const { access, pipeline } = this.deps;
    const { identity, schema } = write;
    const guarded = guardWrite(access, identity, schema, 'delete', { id }, async (db) => {
      if (!(await softDeleteRecord(db, access.view(identity, schema), identity.actor_id, id)))
        throw RecordsErrors.entityNotFound(schema.path, id);
      return { recordId: id, response: { status: 204, body: '' } };
    });
    return pipeline.run({
      schema,
      identity,
      operation: 'delete',
      idempotency: write.idempotency(),
      ...guarded,
    });
  }
}
