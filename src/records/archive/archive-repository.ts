import { mapRecordError } from '../records/database-errors.js';
import type { Queryable } from '../../platform/database/queryable.js';
import { renderCondition } from '../records/select-records.js';
import type { SelectPlan } from '../records/select-plan.js';
import { SqlParams, statement } from '../records/statement.js';
import { inHotStorageFunction, unarchiveHistoryFunction } from '../ddl/definer-functions.js';
import { historyTable } from '../ddl/change-triggers.js';
import { quoteIdent, quoteLiteral } from '../schemas/identifiers.js';
import { systemFields } from '../types.js';
import { columnJsonSql, jsonObjectSql, type CompiledSchema } from '../schemas/compiled-schema.js';

/**
 * Reads of cold storage. A record is archived while it has an archived copy and no row in hot
 * storage; cold storage is append-only, so a record archived, brought back and archived again has
 * one copy per archival (told apart by `version`), and its newest copy is the one shown.
 */

const archivedAtSql = (column: string) =>
  `jsonb_build_object('archived_at', to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))`;

// Through the owner's function: the caller's policies may hide the hot row (definer-functions.ts).
const notInHotStorage = (schema: CompiledSchema, recordColumn: string) =>
  `NOT ${inHotStorageFunction(schema.definition)}(${recordColumn})`;

/**
 * The archived record `id` with `archived_at`: its newest archived copy, or with `version` the copy
 * or archived history state at that version. Undefined when the record is not archived.
 */
export async function findArchivedRecord(
  db: Queryable,
  schema: CompiledSchema,
  id: string,
  version: number | undefined,
): Promise<string | undefined> {
  const copies = await db.query<{ j: string }>(
    statement(
      `SELECT (a.record || ${archivedAtSql('a.archived_at')})::text AS j FROM records_archive.records a
       WHERE a.schema_path = $1 AND a.record_id = $2 AND ($3::integer IS NULL OR a.version = $3) AND ${notInHotStorage(schema, 'a.record_id')}
       ORDER BY a.archived_at DESC, a.version DESC LIMIT 1`,
      [schema.path, id, version ?? null],
    ),
  );
  if (copies.rows[0] || version === undefined || !schema.definition.timeMachine) return copies.rows[0]?.j;
  // An earlier version lives on in the archived history (time-machine schemas).
  const states = await db.query<{ j: string }>(
    statement(
      `SELECT (h.state || ${archivedAtSql('h.archived_at')})::text AS j FROM records_archive.history h
       WHERE h.schema_path = $1 AND h.record_id = $2 AND h.state ->> 'version' = $3::text AND ${notInHotStorage(schema, 'h.record_id')}
       ORDER BY h.event_id DESC LIMIT 1`,
      [schema.path, id, version],
    ),
  );
  return states.rows[0]?.j;
}

/** An archived copy: the record as stored, and as shown (with `archived_at`). */
export interface ArchivedCopy {
  record: string;
  json: string;
}

/**
 * The newest archived copy of `id` when the record is archived and that copy passes `rowFilter`
 * (SQL over the schema table's columns, evaluated on the copy turned back into a row of that
 * table, so the same condition applies as on hot storage); else undefined.
 */
export async function newestArchivedCopy(
  db: Queryable,
  schema: CompiledSchema,
  id: string,
  rowFilter: string | undefined,
): Promise<ArchivedCopy | undefined> {
  const { rows } = await db.query<ArchivedCopy>(
    statement(
      `SELECT r._archive_record AS record, r._archive_json AS json FROM (
  SELECT p.*, a.record::text AS _archive_record, (a.record || ${archivedAtSql('a.archived_at')})::text AS _archive_json
  FROM records_archive.records a CROSS JOIN LATERAL jsonb_populate_record(NULL::${schema.table}, a.record) p
  WHERE a.schema_path = $1 AND a.record_id = $2 AND ${notInHotStorage(schema, 'a.record_id')}
  ORDER BY a.archived_at DESC, a.version DESC LIMIT 1) r${rowFilter !== undefined ? `\nWHERE ${rowFilter}` : ''}`,
      [schema.path, id],
    ),
  );
  return rows[0];
}

/** A page of archived records: JSON texts (with `archived_at`), newest archival first. */
export interface ArchivePage {
  rows: string[];
  hasMore: boolean;
}

/**
 * Runs a query DSL plan (`where`, `select`, `limit`) over the archived records of a schema. Each
 * archived copy is turned back into a row of the schema's table type, so conditions (and a row
 * filter, `rowFilter`) render exactly as they do on hot storage. `schema.recordJson` builds each
 * record (a caller's view nulls its unreadable fields there).
 */
export async function queryArchive(
  db: Queryable,
  schema: CompiledSchema,
  plan: SelectPlan,
  rowFilter?: string,
): Promise<ArchivePage> {
  const params = new SqlParams();
  const pathParam = params.add(schema.path, 'text');
  const conditions = plan.where.map((condition) => renderCondition(condition, params));
  if (rowFilter !== undefined) conditions.push(rowFilter);
  const json = plan.select
    ? jsonObjectSql(plan.select.map((column) => [column.name, columnJsonSql(column)]))
    : schema.recordJson;
  const text = `SELECT (${json}::jsonb || ${archivedAtSql('r._archived_at')})::text AS j FROM (
  SELECT DISTINCT ON (a.record_id) p.*, a.archived_at AS _archived_at
  FROM records_archive.records a CROSS JOIN LATERAL jsonb_populate_record(NULL::${schema.table}, a.record) p
  WHERE a.schema_path = ${pathParam} AND ${notInHotStorage(schema, 'a.record_id')}
  ORDER BY a.record_id, a.archived_at DESC, a.version DESC) r
${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
ORDER BY r._archived_at DESC, r.id LIMIT ${plan.limit + 1}`;
  try {
    const { rows } = await db.query<{ j: string }>(statement(text, params.values));
    const hasMore = rows.length > plan.limit;
    return { rows: rows.slice(0, plan.limit).map((row) => row.j), hasMore };
  } catch (error) {
    throw mapRecordError(schema, error);
  }
}

/** Whether the record has a row in hot storage (live or soft-deleted). */
export async function inHotStorage(db: Queryable, schema: CompiledSchema, id: string): Promise<boolean> {
  const { rows } = await db.query<{ hot: boolean }>(
    statement(`SELECT ${inHotStorageFunction(schema.definition)}($1::uuid) AS hot`, [id]),
  );
  return rows[0]?.hot === true;
}

/**
 * Whether `id` is an archived record of the schema (any archived copy), asked through
 * `records.archived_record_exists` (migration 0017): creates run as roles that do not read cold
 * storage.
 */
export async function isArchivedId(db: Queryable, schema: CompiledSchema, id: string): Promise<boolean> {
  const { rows } = await db.query<{ archived: boolean }>(
    statement(`SELECT records.archived_record_exists($1, $2::uuid) AS archived`, [schema.path, id]),
  );
  return rows[0]?.archived === true;
}

/** The caller's part in an unarchive (access layers), see `unarchiveRecord`. */
export interface UnarchiveGuard {
  /** Row filter SQL the archived copy must pass (else the record counts as not archived). */
  rowFilter?: string;
  /** Runs on the archived copy before anything is written; throws to refuse. */
  check?(record: Record<string, unknown>): void;
  /** Runs just before the record is inserted (the history is back by then). */
  beforeInsert?(db: Queryable): Promise<void>;
}

/**
 * Brings an archived record back to hot storage, with its archived history: history rows return
 * with their event ids, then the record is inserted as its newest archived copy with `version`
 * incremented and `updated_at`/`updated_by` set, under operation UNARCHIVE and `reason`, so the
 * change trigger writes the UNARCHIVE history and audit events. Run inside a transaction, as a role
 * that sees every row of the schema's table (RLS would hide a row that is back already); `guard`
 * switches to the caller in `beforeInsert`. Returns the record JSON, or undefined when it is not
 * archived (never archived, in hot storage, or its copy fails `guard.rowFilter`).
 */
export async function unarchiveRecord(
  db: Queryable,
  schema: CompiledSchema,
  actor: string,
  id: string,
  reason: string,
  guard: UnarchiveGuard = {},
): Promise<string | undefined> {
  // Serialises two unarchives of one record; the loser then finds it in hot storage.
  await db.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`weft_unarchive:${schema.path}:${id}`]);
  if (await inHotStorage(db, schema, id)) return undefined;
  const record = (await newestArchivedCopy(db, schema, id, guard.rowFilter))?.record;
  if (record === undefined) return undefined;
  guard.check?.(JSON.parse(record) as Record<string, unknown>);
  // History is written by the owner only (unarchive-history.ts).
  if (schema.definition.timeMachine)
    await db.query(statement(`SELECT ${unarchiveHistoryFunction(schema.definition)}($1::uuid)`, [id]));
  await guard.beforeInsert?.(db);
  await db.query(
    `SELECT set_config('weft.operation', 'UNARCHIVE', true), set_config('weft.reason', $1, true)`,
    [reason],
  );
  const fields = schema.definition.fields.map((field) => quoteIdent(field.name));
  const columns = [...systemFields, ...fields];
  const values = [
    'src.id',
    'src.created_at',
    'src.created_by',
    'now()',
    '$2',
    'src.version + 1',
    'src.deleted_at',
    ...fields.map((name) => `src.${name}`),
  ];
  try {
    const { rows } = await db.query<{ j: string }>(
      statement(
        `INSERT INTO ${schema.table} (${columns.join(', ')}) SELECT ${values.join(', ')}
         FROM jsonb_populate_record(NULL::${schema.table}, $1::jsonb) AS src RETURNING ${schema.recordJson}::text AS j`,
        [record, actor],
      ),
    );
    // Later statements of the transaction are not part of the unarchive.
    await db.query(`SELECT set_config('weft.operation', '', true), set_config('weft.reason', '', true)`);
    return rows[0]?.j;
  } catch (error) {
    throw mapRecordError(schema, error);
  }
}

/**
 * The recomputed hashes (records.history_row_hash) of a record's archived history rows among
 * `eventIds`: audit verify's look-up of the rows its chain covers that are not in hot storage.
 */
export async function archivedHistoryRowHashes(
  db: Queryable,
  schemaPath: string,
  id: string,
  eventIds: string[],
): Promise<{ event_id: string; hash: string }[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await db.query<{ event_id: string; hash: string }>(
    statement(
      `SELECT DISTINCT ON (event_id) event_id::text, records.history_row_hash(event_id, record_id, "timestamp", actor, operation, old_value, new_value, state, reason) AS hash
       FROM records_archive.history WHERE schema_path = $1 AND record_id = $2 AND event_id = ANY($3::bigint[])
       ORDER BY event_id, archived_at`,
      [schemaPath, id, eventIds],
    ),
  );
  return rows;
}

/** Copies the hot rows `ids` into cold storage as archived at `archivedAt` (ISO 8601). */
export async function insertArchivedCopies(
  db: Queryable,
  schema: CompiledSchema,
  ids: readonly string[],
  archivedAt: string,
): Promise<void> {
  const path = quoteLiteral(schema.path);
  await db.query(
    `INSERT INTO records_archive.records (schema_path, record_id, version, archived_at, record)
         SELECT ${path}, id, version, $2, ${schema.recordJson}::jsonb FROM ${schema.table} WHERE id = ANY($1::uuid[])`,
    [ids, archivedAt],
  );
}

/**
 * Copies the hot history of the records `ids` into cold storage and adds one `ARCHIVE` event per
 * record (by `system:archive`, from the hot history's event sequence), archived at `archivedAt`.
 */
export async function insertArchivedHistory(
  db: Queryable,
  schema: CompiledSchema,
  ids: readonly string[],
  archivedAt: string,
): Promise<void> {
  const path = quoteLiteral(schema.path);
  const history = historyTable(schema.definition);
  // Events archived before (the record was archived, unarchived, archived again) stay as they
  // are: cold storage is append-only and holds each event once.
  await db.query(
    `INSERT INTO records_archive.history (schema_path, record_id, event_id, "timestamp", actor, operation, old_value, new_value, state, reason, archived_at)
           SELECT ${path}, h.record_id, h.event_id, h."timestamp", h.actor, h.operation, h.old_value, h.new_value, h.state, h.reason, $2
           FROM ${history} h WHERE h.record_id = ANY($1::uuid[]) AND NOT EXISTS (
             SELECT 1 FROM records_archive.history c WHERE c.schema_path = ${path} AND c.record_id = h.record_id AND c.event_id = h.event_id)`,
    [ids, archivedAt],
  );
  await db.query(
    `INSERT INTO records_archive.history (schema_path, record_id, event_id, "timestamp", actor, operation, old_value, new_value, state, archived_at)
           SELECT ${path}, id, nextval(pg_get_serial_sequence(${quoteLiteral(history)}, 'event_id')), $2, 'system:archive', 'ARCHIVE',
             ${schema.recordJson}::jsonb, NULL, ${schema.recordJson}::jsonb, $2
           FROM ${schema.table} WHERE id = ANY($1::uuid[]) ORDER BY id`,
    [ids, archivedAt],
  );
}

/**
 * Fills the snapshot table `table` (created like the schema's table) with each record's state as of
 * `at` (timestamptz text): its newest event at or before `at`, hot or archived. Returns the rows
 * written.
 */
export async function fillSnapshotTable(
  db: Queryable,
  table: string,
  schema: CompiledSchema,
  at: string,
): Promise<number> {
  const path = quoteLiteral(schema.path);
  const inserted = await db.query(
    `INSERT INTO ${table} SELECT (jsonb_populate_record(NULL::${schema.table}, s.state)).* FROM (
           SELECT DISTINCT ON (record_id) state FROM (
             SELECT record_id, event_id, state FROM ${historyTable(schema.definition)} WHERE "timestamp" <= $1
             UNION ALL
             SELECT record_id, event_id, state FROM records_archive.history WHERE schema_path = ${path} AND "timestamp" <= $1
           ) AS events ORDER BY record_id, event_id DESC) AS s`,
    [at],
  );
  return inserted.rowCount ?? 0;
}
