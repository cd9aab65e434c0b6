import { withTransaction, type Pool } from '../../platform/database/pool.js';
import { parseExactJson, stringifyExactJson } from '../../platform/json/exact-json.js';
import { checkPlanFields, type AccessControl } from '../access/access-control.js';
import { sessionSettingsSql } from '../access/access-session.js';
import { hiddenFields, maskRecord } from '../access/field-access.js';
import { rowFilterSql } from '../access/row-filter.js';
import type { Queryable } from '../../platform/database/queryable.js';
import type { SelectPlan } from '../records/select-plan.js';
import type { RecordWrite, WritePipeline, WriteResult } from '../records/write-pipeline.js';
import { RecordsErrors } from '../errors.js';
import { successBody } from '../http/envelope.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity } from '../types.js';
import {
  findArchivedRecord,
  isStaged,
  newestArchivedCopy,
  queryArchive,
  unarchiveRecord,
  visibleFileCopy,
  withArchivedAt,
  type ArchivePage,
  type ArchivePosition,
} from './archive-repository.js';
import type { ArchiveFiles } from './files/archive-files.js';
import { queryArchived } from './files/query-archived.js';
import { restageFromFiles } from './files/restage-record.js';
import { ColdPartitions } from './cold-partitions.js';

/**
 * The access layers on cold storage (docs/records/archive.md, "Access control"). Cold tables hold
 * every schema's copies as JSON and carry no policies, so layer 4 is the schema's row filter
 * evaluated on each copy turned back into a row of the schema's table, with the caller's `weft.*`
 * settings published. Reads keep the connecting role: they must tell whether a record is back in
 * hot storage, and RLS would hide a row the caller may not see and make its stale copy look
 * archived. The record read rules (layer 2) and the field mask (layer 5) apply to what is shown.
 * The newest copy, the archived record's current state, decides whether any of it is visible.
 */

/** Layer 4 for cold storage: always applied (RLS cannot stand in for it there). */
function coldRowFilter(identity: Identity, schema: CompiledSchema): string | undefined {
  return rowFilterSql(schema.definition.access, identity.roles);
}

/** The fields an unarchive writes with a value: the field write filter applies to them. */
function restoredFields(schema: CompiledSchema, record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    schema.definition.fields
      .filter((field) => record[field.name] !== null && record[field.name] !== undefined)
      .map((field) => [field.name, record[field.name]]),
  );
}

/** What the archive service needs. */
export interface ArchiveServiceDependencies {
  pool: Pool;
  access: AccessControl;
  pipeline: WritePipeline;
  /** The archive's files and the owner's pool that brings a record back from them; without them only staged records are read. */
  files?: { files: ArchiveFiles; ownerPool: Pool };
}

/** Reads, queries and unarchives a schema's archived records as the caller. */
export class ArchiveService {
  private readonly partitions: ColdPartitions | undefined;

  constructor(private readonly deps: ArchiveServiceDependencies) {
    this.partitions = deps.files ? new ColdPartitions(deps.files.ownerPool) : undefined;
  }

  /**
   * `GET /{id}/archive[?version=N]` through layers 2, 4 and 5: 404 when the record is not
   * archived or its newest copy fails the caller's row filter; 403 ABAC_DENIED when a record read
   * rule denies that copy; the shown state (that copy, or the one at `version`) masked.
   */
  async read(
    identity: Identity,
    schema: CompiledSchema,
    id: string,
    version: number | undefined,
  ): Promise<string> {
    const { access } = this.deps;
    access.checkBefore(identity, schema, 'read');
    const json = await this.readCold(identity, schema, async (db) => {
      const newest = await newestArchivedCopy(db, schema, id, coldRowFilter(identity, schema));
      if (newest === undefined) return this.readFromFiles(db, identity, schema, id, version);
      access.checkRecord(identity, schema, 'read', JSON.parse(newest.record) as Record<string, unknown>);
      return version === undefined ? newest.json : findArchivedRecord(db, schema, id, version);
    });
    if (json === undefined) throw RecordsErrors.entityNotFound(schema.path, id);
    return access.maskJson(identity, schema, json);
  }

  /**
   * An archived record that lives in files: its current copy decides (row filter, record read
   * rules) as the newest staged copy does; `version` picks a copy or an archived history state.
   */
  private async readFromFiles(
    db: Queryable,
    identity: Identity,
    schema: CompiledSchema,
    id: string,
    version: number | undefined,
  ): Promise<string | undefined> {
    const files = this.deps.files?.files;
    if (!files) return undefined;
    const current = await files.currentCopy(db, schema.path, id);
    if (current === undefined) return undefined;
    const shown = await visibleFileCopy(
      db,
      schema,
      { record_id: id, ...current },
      coldRowFilter(identity, schema),
    );
    if (shown === undefined) return undefined;
    this.deps.access.checkRecord(
      identity,
      schema,
      'read',
      JSON.parse(current.record) as Record<string, unknown>,
    );
    if (version === undefined || current.version === version) return shown;
    const copies = await files.copiesOf(db, schema.path, id);
    const copy = copies.find((item) => item.version === version);
    if (copy) return withArchivedAt(db, copy.record, copy.archived_at);
    if (!schema.definition.timeMachine) return undefined;
    const states = (await files.rowsOf(db, schema.path, id, 'history'))
      .map((row) => JSON.parse(row) as { state: { version?: unknown }; archived_at: string })
      .filter((row) => row.state.version === version);
    const state = states[states.length - 1];
    return state ? withArchivedAt(db, JSON.stringify(state.state), state.archived_at) : undefined;
  }

  /**
   * `POST /archive/query` through layers 2, 4 and 5, as lists do: rows failing the row filter are
   * left out, one row a record read rule denies makes the request 403, unreadable fields are null
   * and may not be filtered on (400).
   */
  async query(
    identity: Identity,
    schema: CompiledSchema,
    plan: SelectPlan,
    after?: ArchivePosition,
  ): Promise<ArchivePage> {
    const { access } = this.deps;
    access.checkBefore(identity, schema, 'read');
    checkPlanFields(identity, schema, plan);
    const recordRules = access.hasRecordReadRules(schema);
    const masked = hiddenFields(schema.definition.access, identity.roles).length > 0;
    // Record rules see whole records, and a projection of masked records is made after masking.
    const { select, ...unprojected } = plan;
    const project = select !== undefined && (recordRules || masked);
    const view = access.view(identity, schema, { mask: !recordRules });
    const files = this.deps.files?.files;
    const read = project ? unprojected : plan;
    const rowFilter = coldRowFilter(identity, schema);
    const page = await this.readCold(identity, schema, (db) =>
      files
        ? queryArchived(db, files, view, read, rowFilter, after)
        : queryArchive(db, view, read, rowFilter, after ? { after } : {}),
    );
    let rows = access.finishRecords(identity, schema, page.rows);
    if (project)
      rows = rows.map((json) => {
        const record = maskRecord(identity, schema, parseExactJson(json) as Record<string, unknown>);
        return stringifyExactJson({
          ...Object.fromEntries(select.map((column) => [column.name, record[column.name]])),
          archived_at: record.archived_at,
        });
      });
    return { rows, hasMore: page.hasMore, positions: page.positions };
  }

  /**
   * `POST /{id}/unarchive` as an update through layers 2, 4, 6 and 7, in one transaction opened
   * (on a schema with row security) with the caller's settings without the role switch, so the row
   * filter can read them: the archived copy must pass the caller's row filter (else 404) and its
   * record read rules, and the update rules with `record` the copy and `request` the fields it
   * restores with a value (else 403 ABAC_DENIED); the caller must be allowed to write every one of
   * those fields (else 403 FIELD_WRITE_DENIED): to hot storage the record is new, so every value it
   * brings back is written, as by a create. The history returns as the owner (as triggers write
   * it); the record is inserted as the caller, so RLS checks the new row. 200 with the record,
   * masked.
   */
  async unarchive(write: RecordWrite, id: string, reason: string): Promise<WriteResult> {
    const { access, pipeline } = this.deps;
    const { identity, schema } = write;
    access.checkBefore(identity, schema, 'read');
    await this.restageIfInFiles(identity, schema, id);
    const settings = access.needsSession(schema) ? sessionSettingsSql(identity, { role: false }) : undefined;
    return pipeline.run({
      schema,
      identity,
      operation: 'update',
      idempotency: write.idempotency(),
      transactional: true,
      ...(settings !== undefined ? { begin: async (client) => void (await client.query(settings)) } : {}),
      execute: async (db) => {
        const json = await this.unarchiveAsCaller(db, identity, schema, id, reason);
        if (json === undefined) throw RecordsErrors.entityNotFound(schema.path, id);
        return { recordId: id, response: { status: 200, body: successBody(json, write.requestId) } };
      },
    });
  }

  private async unarchiveAsCaller(
    db: Queryable,
    identity: Identity,
    schema: CompiledSchema,
    id: string,
    reason: string,
  ): Promise<string | undefined> {
    const { access } = this.deps;
    access.checkBefore(identity, schema, 'read');
    const rowFilter = coldRowFilter(identity, schema);
    const json = await unarchiveRecord(db, schema, identity.actor_id, id, reason, {
      ...(rowFilter !== undefined ? { rowFilter } : {}),
      check: (record) => {
        access.checkRecord(identity, schema, 'read', record);
        access.checkChange(identity, schema, 'update', record, restoredFields(schema, record));
      },
      beforeInsert: async (session) => {
        if (access.needsSession(schema)) await session.query(sessionSettingsSql(identity));
      },
    });
    return json === undefined ? undefined : access.maskJson(identity, schema, json);
  }

  /**
   * Brings a record that lives in files back into staging first (as the owner), so the unarchive
   * proceeds as for a staged record; nothing happens when it is staged, hot or not archived.
   */
  private async restageIfInFiles(identity: Identity, schema: CompiledSchema, id: string): Promise<void> {
    const { files, access } = this.deps;
    if (!files || !this.partitions) return;
    if (await isStaged(files.ownerPool, schema.path, id)) return;
    const copies = await files.files.copiesOf(files.ownerPool, schema.path, id);
    const current = await files.files.currentCopy(files.ownerPool, schema.path, id, copies);
    if (current === undefined) return;
    // The caller's layers judge the copy before anything moves, as they judge a staged copy in the
    // unarchive's transaction: a refused request leaves the record where it is.
    const shown = await this.readCold(identity, schema, (db) =>
      visibleFileCopy(db, schema, { record_id: id, ...current }, coldRowFilter(identity, schema)),
    );
    if (shown === undefined) throw RecordsErrors.entityNotFound(schema.path, id);
    const record = JSON.parse(current.record) as Record<string, unknown>;
    access.checkRecord(identity, schema, 'read', record);
    access.checkChange(identity, schema, 'update', record, restoredFields(schema, record));
    await restageFromFiles(files.ownerPool, files.files, this.partitions, schema, id, copies);
  }

  /**
   * Runs a cold read in one snapshot (REPEATABLE READ), with the caller's settings when the
   * schema's row filters read them. A read asks the manifest, the superseded copies and the staged
   * tables in several statements; an export (manifest row in, staged rows out) or a restage
   * committing between two of them would otherwise hide records from both places.
   */
  private readCold<T>(
    identity: Identity,
    schema: CompiledSchema,
    work: (db: Queryable) => Promise<T>,
  ): Promise<T> {
    const { access, pool } = this.deps;
    const begin = 'BEGIN ISOLATION LEVEL REPEATABLE READ';
    return withTransaction(pool, work, {
      begin: access.needsSession(schema)
        ? `${begin}; ${sessionSettingsSql(identity, { role: false })}`
        : begin,
    });
  }
}
