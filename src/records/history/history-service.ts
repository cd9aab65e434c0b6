import type { Queryable } from '../../platform/database/queryable.js';
import { parseExactJson } from '../../platform/json/exact-json.js';
import type { AccessControl } from '../access/access-control.js';
import { maskChange } from '../access/channel-masks.js';
import { maskRecord } from '../access/field-access.js';
import type { RecordReader } from '../access/record-reader.js';
import { writeSession } from '../access/write-guard.js';
import { RecordsErrors } from '../errors.js';
import { successBody } from '../http/envelope.js';
import type { CursorCodec } from '../records/cursor.js';
import type { RecordPage } from '../records/select-records.js';
import type { SelectPlan } from '../records/select-plan.js';
import type { RecordWrite, WritePipeline, WriteResult } from '../records/write-pipeline.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { uuidPattern } from '../schemas/identifiers.js';
import type { Identity } from '../types.js';
import { diffStates, type RecordDiff } from './diff.js';
import { presentHistoryEvent, presentRecordState } from './present.js';
import { hasHistory, historyAfter, listHistory, stateJsonAt } from './history-repository.js';
import { restoreAsCaller } from './restore-as-caller.js';
import { presentSnapshot, snapshotTable, type SnapshotJob, type SnapshotRow } from './snapshot-job.js';

/** What the history service needs. */
export interface HistoryServiceDependencies {
  access: AccessControl;
  reader: RecordReader;
  pipeline: WritePipeline;
  cursors: CursorCodec;
  snapshots: SnapshotJob;
}

/** One event of a replay: its id (the SSE `id`) and the event as the caller may see it. */
export interface ReplayEvent {
  eventId: string;
  event: Record<string, unknown>;
}

const replayPage = 200;

/** 400 unless the schema keeps history (`spec.timeMachine: true`). */
export function requireTimeMachine(schema: CompiledSchema): void {
  if (!schema.definition.timeMachine)
    throw RecordsErrors.validation(`${schema.path} keeps no history`, [
      { field: 'timeMachine', reason: 'the schema needs spec.timeMachine: true' },
    ]);
}

/**
 * The time machine of a schema's records: history events, the state at an instant, diffs,
 * restores, replays and snapshots. Every read about one record first passes layers 2, 4 and 7 on
 * the record (`requireReadable`, in one access session); what is shown passes layer 5.
 */
export class HistoryService {
  constructor(private readonly deps: HistoryServiceDependencies) {}

  /** A page of a record's history events (404 when it has none the caller may see). */
  async events(
    identity: Identity,
    schema: CompiledSchema,
    id: string,
    limit: number,
    offset: number,
  ): Promise<{ events: Record<string, unknown>[]; total: number }> {
    const page = await this.readTrail(identity, schema, id, (db) =>
      listHistory(db, schema, id, limit, offset),
    );
    if (page.total === 0) throw RecordsErrors.entityNotFound(schema.path, id);
    return {
      events: page.rows.map((row) => maskChange(identity, schema, presentHistoryEvent(row))),
      total: page.total,
    };
  }

  /** The record as it was at `at`, masked (404 when it did not exist then). */
  async stateAt(
    identity: Identity,
    schema: CompiledSchema,
    id: string,
    at: string,
  ): Promise<Record<string, unknown>> {
    const state = await this.readTrail(identity, schema, id, (db) => storedStateAt(db, schema, id, at));
    if (!state) throw RecordsErrors.entityNotFound(schema.path, id);
    return maskRecord(identity, schema, presentRecordState(state));
  }

  /** What changed between `from` and `to` (404 when the record existed at neither). */
  async diff(
    identity: Identity,
    schema: CompiledSchema,
    id: string,
    from: string,
    to: string,
  ): Promise<RecordDiff> {
    const [before, after] = await this.readTrail(identity, schema, id, async (db) => [
      await storedStateAt(db, schema, id, from),
      await storedStateAt(db, schema, id, to),
    ]);
    if (!before && !after) throw RecordsErrors.entityNotFound(schema.path, id);
    // Both sides masked: a hidden field is null on each, so it shows in no part of the diff.
    const shown = (state: Record<string, unknown> | undefined) =>
      state ? maskRecord(identity, schema, presentRecordState(state)) : null;
    return diffStates(shown(before), shown(after));
  }

  /** Restores the record to its state at `at`, as an update through every write layer; 201. */
  restore(write: RecordWrite, id: string, at: string, reason: string): Promise<WriteResult> {
    const { access, reader, pipeline } = this.deps;
    const { identity, schema } = write;
    return pipeline.run({
      schema,
      identity,
      operation: 'update',
      idempotency: write.idempotency(),
      begin: writeSession(access, identity, schema),
      execute: async (db) => {
        const json = await restoreAsCaller(db, reader, identity, schema, id, at, reason);
        return { recordId: id, response: { status: 201, body: successBody(json, write.requestId) } };
      },
    });
  }

  /**
   * The record's history events after `resumeAfter`, as the caller may see them (404 now when it
   * has none). Pages of events keep memory flat however long the history is; each page is read in
   * the caller's access session: history rows are visible while their record is
   * (derived-rows-rls.ts).
   */
  async replay(
    identity: Identity,
    schema: CompiledSchema,
    id: string,
    resumeAfter: string,
  ): Promise<AsyncGenerator<ReplayEvent>> {
    const { reader } = this.deps;
    const known = await this.readTrail(identity, schema, id, (db) => hasHistory(db, schema, id));
    if (!known) throw RecordsErrors.entityNotFound(schema.path, id);
    async function* events(): AsyncGenerator<ReplayEvent> {
      let after = resumeAfter;
      for (;;) {
        const from = after;
        const rows = await reader.read(identity, [schema], (db) =>
          historyAfter(db, schema, id, from, replayPage),
        );
        for (const row of rows)
          yield { eventId: row.event_id, event: maskChange(identity, schema, presentHistoryEvent(row)) };
        if (rows.length < replayPage) return;
        after = rows[rows.length - 1]!.event_id;
      }
    }
    return events();
  }

  /**
   * Taking a snapshot writes no record; its rows are read later through every read layer. The
   * requester must still pass the read rules that need no record, as a list would.
   */
  authorizeSnapshot(identity: Identity, schema: CompiledSchema): void {
    this.deps.access.checkBefore(identity, schema, 'read');
  }

  /** Asks for a snapshot of the schema at `at` (materialised by the snapshot job). */
  async requestSnapshot(
    identity: Identity,
    schema: CompiledSchema,
    at: string,
    reason: string,
  ): Promise<Record<string, unknown>> {
    return presentSnapshot(await this.deps.snapshots.request(schema, at, reason, identity.actor_id));
  }

  /** A snapshot as the caller may see it. */
  async snapshot(
    identity: Identity,
    schema: CompiledSchema,
    snapshotId: string,
  ): Promise<Record<string, unknown>> {
    const { access } = this.deps;
    access.checkBefore(identity, schema, 'read');
    // The count covers every record: not for a caller who sees only some (layer 4).
    const count = access.view(identity, schema, { mask: false }).rowFilter === undefined;
    return presentSnapshot(await this.findSnapshot(schema, snapshotId), { count });
  }

  /** A completed snapshot (404 when unknown, 400 while it is not completed). */
  async completedSnapshot(schema: CompiledSchema, snapshotId: string): Promise<SnapshotRow> {
    const snapshot = await this.findSnapshot(schema, snapshotId);
    if (snapshot.status !== 'completed')
      throw RecordsErrors.validation(`Snapshot ${snapshot.snapshot_id} is ${snapshot.status}`, [
        { field: 'snapshot_id', reason: 'rows are readable once the snapshot is completed' },
      ]);
    return snapshot;
  }

  /** A page of a completed snapshot's rows, through every read layer. */
  async snapshotPage(
    identity: Identity,
    schema: CompiledSchema,
    snapshot: SnapshotRow,
    plan: SelectPlan,
  ): Promise<RecordPage> {
    const { page } = await this.deps.reader.readPage(identity, schema, plan, this.deps.cursors, [], {
      table: snapshotTable(snapshot.snapshot_id),
    });
    return page;
  }

  private async findSnapshot(schema: CompiledSchema, snapshotId: string): Promise<SnapshotRow> {
    const row = uuidPattern.test(snapshotId)
      ? await this.deps.snapshots.find(schema.path, snapshotId.toLowerCase())
      : undefined;
    if (!row)
      throw RecordsErrors.notFound(`No snapshot ${snapshotId.slice(0, 100)} of ${schema.path}`, {
        snapshot_id: snapshotId.slice(0, 100),
      });
    return row;
  }

  /** Layers 2, 4 and 7 on the record first (one access session), then `work`. */
  private readTrail<T>(
    identity: Identity,
    schema: CompiledSchema,
    id: string,
    work: (db: Queryable) => Promise<T>,
  ): Promise<T> {
    const { reader } = this.deps;
    return reader.read(identity, [schema], async (db) => {
      await reader.requireReadable(db, identity, schema, id);
      return work(db);
    });
  }
}

// States as stored, every digit of their numbers kept (see parseExactJson).
async function storedStateAt(
  db: Queryable,
  schema: CompiledSchema,
  id: string,
  at: string,
): Promise<Record<string, unknown> | undefined> {
  const json = await stateJsonAt(db, schema, id, at);
  return json === undefined ? undefined : (parseExactJson(json) as Record<string, unknown>);
}
