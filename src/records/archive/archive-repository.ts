import { mapRecordError } from '../records/database-errors.js';
import { isoUtcSql } from '../../platform/database/iso-utc-sql.js';
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

const archivedAtSql = (column: string) => `jsonb_build_object('archived_at', ${isoUtcSql(column)})`;

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
  /** Each row's place in the order (`archived_at` ISO UTC, then `id`), for cursors and merging. */
  positions: ArchivePosition[];
}

/** A place in the archive query's order: newest archival first, then `id`. */
export interface ArchivePosition {
  archived_at: string;
  id: string;
}

/** Archived copies read from files, given to `queryArchive` beside the staged ones. */
export interface ExtraCopy {
  record_id: string;
  version: number;
  archived_at: string;
  record: string;
}

/**
 * Runs a query DSL plan (`where`, `select`, `limit`) over the archived records of a schema: the
 * staged copies and `extra` copies (read from files), the newest copy of each record that is not
 * back in hot storage. Each copy is turned back into a row of the schema's table type, so
 * conditions (and a row filter, `rowFilter`) render exactly as they do on hot storage, and rows
 * start after `after`. `schema.recordJson` builds each record (a caller's view nulls its
 * unreadable fields there).
 */
export async function queryArchive(
  db: Queryable,
  schema: CompiledSchema,
  plan: SelectPlan,
  rowFilter?: string,
  options: { extra?: readonly ExtraCopy[]; after?: ArchivePosition } = {},
): Promise<ArchivePage> {
  const { extra = [], after } = options;
  const params = new SqlParams();
  const pathParam = params.add(schema.path, 'text');
  const conditions = plan.where.map((condition) => renderCondition(condition, params));
  if (rowFilter !== undefined) conditions.push(rowFilter);
  if (after) {
    const at = params.add(after.archived_at, 'timestamptz');
    conditions.push(
      `(r._archived_at < ${at} OR (r._archived_at = ${at} AND r.id > ${params.add(after.id, 'uuid')}))`,
    );
  }
  const extraSource =
    extra.length === 0
      ? ''
      : `UNION ALL SELECT x.record_id, x.version, x.archived_at, x.record FROM unnest(${params.add(
          extra.map((copy) => copy.record_id),
          'uuid[]',
        )}, ${params.add(
          extra.map((copy) => copy.version),
          'integer[]',
        )}, ${params.add(
          extra.map((copy) => copy.archived_at),
          'timestamptz[]',
        )}, ${params.add(
          extra.map((copy) => copy.record),
          'jsonb[]',
        )}) AS x(record_id, version, archived_at, record)`;
  const json = plan.select
    ? jsonObjectSql(plan.select.map((column) => [column.name, columnJsonSql(column)]))
    : schema.recordJson;
  const text = `SELECT (${json}::jsonb || ${archivedAtSql('r._archived_at')})::text AS j,
  to_char(r._archived_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS _position_at, r.id::text AS _position_id FROM (
  SELECT DISTINCT ON (a.record_id) p.*, a.archived_at AS _archived_at
  FROM (SELECT record_id, version, archived_at, record FROM records_archive.records WHERE schema_path = ${pathParam} ${extraSource}) a
  CROSS JOIN LATERAL jsonb_populate_record(NULL::${schema.table}, a.record) p
  WHERE ${notInHotStorage(schema, 'a.record_id')}
  ORDER BY a.record_id, a.archived_at DESC, a.version DESC) r
${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
ORDER BY r._archived_at DESC, r.id LIMIT ${plan.limit + 1}`;
  try {
    const { rows } = await db.query<{ j: string; _position_at: string; _position_id: string }>(
      statement(text, params.values),
    );
    const hasMore = rows.length > plan.limit;
    return {
      rows: rows.slice(0, plan.limit).map((row) => row.j),
      hasMore,
      positions: rows.map((row) => ({ archived_at: row._position_at, id: row._position_id })),
    };
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
  // Serialises two unarchives of one record; the loser then finds it in hot storage. The shared
  // export lock makes an export's commit wait for this one, so it sees the record back.
  await db.query(`SELECT pg_advisory_xact_lock_shared(hashtext($1))`, [exportLockKey(schema.path)]);
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

/**
 * The months (UTC, `YYYY-MM`) in which a schema has staged copies, oldest first: a skip scan of the
 * `archived_at` index, one probe per month, so it costs nothing like a pass over staging.
 */
export async function stagedMonths(db: Queryable, schemaPath: string): Promise<string[]> {
  const firstFrom = (bound: string) =>
    `SELECT date_trunc('month', min(archived_at) AT TIME ZONE 'UTC') FROM records_archive.records
      WHERE schema_path = $1${bound}`;
  const { rows } = await db.query<{ month: string }>(
    `WITH RECURSIVE months(start) AS (
       (${firstFrom('')})
       UNION ALL
       SELECT (${firstFrom(` AND archived_at >= (m.start + interval '1 month') AT TIME ZONE 'UTC'`)})
       FROM months m WHERE m.start IS NOT NULL)
     SELECT to_char(start, 'YYYY-MM') AS month FROM months WHERE start IS NOT NULL ORDER BY start`,
    [schemaPath],
  );
  return rows.map((row) => row.month);
}

/**
 * Up to `limit` staged records due for export (archived now: no row in the schema's table) whose
 * newest copy was archived in `month`, in id order after `after`. Staging is walked in id order,
 * `window` copies at a time (an index range), each window judged whole, so a page costs the ids it
 * passes whatever the planner thinks of the month filter: one statement over all of staging was
 * planned as a full aggregate whenever its estimate was off.
 */
export async function recordsDueForExport(
  db: Queryable,
  schema: CompiledSchema,
  month: string,
  after: string | undefined,
  limit: number,
  window = Math.min(Math.max(limit, 1000), 10_000),
): Promise<string[]> {
  const due: string[] = [];
  let from = after;
  while (due.length < limit) {
    // The window ends at the window-th staged copy after `from`; none: the rest of staging.
    const { rows: edge } = await db.query<{ record_id: string }>(
      `SELECT record_id::text FROM records_archive.records
        WHERE schema_path = $1 AND ($2::uuid IS NULL OR record_id > $2) ORDER BY record_id OFFSET $3 LIMIT 1`,
      [schema.path, from ?? null, window - 1],
    );
    const until = edge[0]?.record_id;
    const { rows } = await db.query<{ record_id: string }>(
      `SELECT n.record_id::text FROM (
         SELECT record_id, max(archived_at) AS at FROM records_archive.records
          WHERE schema_path = $1 AND ($3::uuid IS NULL OR record_id > $3) AND ($4::uuid IS NULL OR record_id <= $4)
          GROUP BY record_id) n
       WHERE n.at >= ($2 || '-01')::timestamp AT TIME ZONE 'UTC'
         AND n.at < (($2 || '-01')::timestamp + interval '1 month') AT TIME ZONE 'UTC'
         AND NOT EXISTS (SELECT 1 FROM ${schema.table} t WHERE t.id = n.record_id)
       ORDER BY n.record_id`,
      [schema.path, month, from ?? null, until ?? null],
    );
    due.push(...rows.slice(0, limit - due.length).map((row) => row.record_id));
    if (until === undefined) break;
    from = until;
  }
  return due;
}

/** The staged copies of `ids`, each with its exact JSON text and `archived_at` in UTC. */
export async function stagedCopies(
  db: Queryable,
  schemaPath: string,
  ids: readonly string[],
): Promise<{ record_id: string; version: number; archived_at: string; record: string }[]> {
  const { rows } = await db.query<{
    record_id: string;
    version: number;
    archived_at: string;
    record: string;
  }>(
    `SELECT record_id::text, version, ${isoUtcSql('archived_at')} AS archived_at, record::text AS record
     FROM records_archive.records WHERE schema_path = $1 AND record_id = ANY($2::uuid[])`,
    [schemaPath, ids],
  );
  return rows;
}

/** The staged history rows of `ids`, each as its exact JSON (`row_to_json`). */
export async function stagedHistoryRows(
  db: Queryable,
  schemaPath: string,
  ids: readonly string[],
): Promise<{ record_id: string; event_id: string; row: string }[]> {
  const { rows } = await db.query<{ record_id: string; event_id: string; row: string }>(
    `SELECT h.record_id::text, h.event_id::text, row_to_json(h)::text AS "row"
     FROM records_archive.history h WHERE h.schema_path = $1 AND h.record_id = ANY($2::uuid[])`,
    [schemaPath, ids],
  );
  return rows;
}

/**
 * Removes exported copies and history rows from staging: exactly the copies (`record_id`,
 * `version`, `archived_at`) and events named, so a copy staged since the export read is kept.
 */
export async function deleteStagedRows(
  db: Queryable,
  schemaPath: string,
  copies: readonly { record_id: string; version: number; archived_at: string }[],
  events: readonly { record_id: string; event_id: string }[],
): Promise<void> {
  await db.query(
    `DELETE FROM records_archive.records a USING unnest($2::uuid[], $3::integer[], $4::timestamptz[]) AS x(record_id, version, archived_at)
     WHERE a.schema_path = $1 AND a.record_id = x.record_id AND a.version = x.version AND a.archived_at = x.archived_at`,
    [
      schemaPath,
      copies.map((copy) => copy.record_id),
      copies.map((copy) => copy.version),
      copies.map((copy) => copy.archived_at),
    ],
  );
  await db.query(
    `DELETE FROM records_archive.history h USING unnest($2::uuid[], $3::bigint[]) AS x(record_id, event_id)
     WHERE h.schema_path = $1 AND h.record_id = x.record_id AND h.event_id = x.event_id`,
    [schemaPath, events.map((event) => event.record_id), events.map((event) => event.event_id)],
  );
}

/**
 * Puts a record's archived copies and history rows read from files (exact JSON rows) back into
 * staging, skipping what is there already: an unarchive then proceeds from staging.
 */
export async function restageRows(
  db: Queryable,
  schemaPath: string,
  copies: readonly { record_id: string; version: number; archived_at: string; record: string }[],
  historyRows: readonly string[],
): Promise<void> {
  await db.query(
    `INSERT INTO records_archive.records (schema_path, record_id, version, archived_at, record)
     SELECT $1, x.record_id, x.version, x.archived_at, x.record FROM unnest($2::uuid[], $3::integer[], $4::timestamptz[], $5::jsonb[]) AS x(record_id, version, archived_at, record)
     WHERE NOT EXISTS (SELECT 1 FROM records_archive.records a WHERE a.schema_path = $1 AND a.record_id = x.record_id AND a.version = x.version AND a.archived_at = x.archived_at)`,
    [
      schemaPath,
      copies.map((copy) => copy.record_id),
      copies.map((copy) => copy.version),
      copies.map((copy) => copy.archived_at),
      copies.map((copy) => copy.record),
    ],
  );
  await db.query(
    `INSERT INTO records_archive.history
     SELECT x.* FROM jsonb_populate_recordset(NULL::records_archive.history, $2::jsonb) AS x
     WHERE NOT EXISTS (SELECT 1 FROM records_archive.history h WHERE h.schema_path = $1 AND h.record_id = x.record_id AND h.event_id = x.event_id)`,
    [schemaPath, `[${historyRows.join(',')}]`],
  );
}

/**
 * A copy read from a file as the API shows it (with `archived_at`), when the record is not back in
 * hot storage and the copy passes `rowFilter` (evaluated on the copy turned back into a row of the
 * schema's table, as for staged copies); else undefined.
 */
export async function visibleFileCopy(
  db: Queryable,
  schema: CompiledSchema,
  copy: { record_id: string; archived_at: string; record: string },
  rowFilter: string | undefined,
): Promise<string | undefined> {
  const { rows } = await db.query<{ j: string }>(
    statement(
      `SELECT ($1::jsonb || ${archivedAtSql('$3::timestamptz')})::text AS j
       FROM jsonb_populate_record(NULL::${schema.table}, $1::jsonb) p
       WHERE ${notInHotStorage(schema, '$2::uuid')}${rowFilter !== undefined ? ` AND ${rowFilter}` : ''}`,
      [copy.record, copy.record_id, copy.archived_at],
    ),
  );
  return rows[0]?.j;
}

/** A JSON text (a copy or an archived history state) with `archived_at` added, as the API shows it. */
export async function withArchivedAt(db: Queryable, json: string, archivedAt: string): Promise<string> {
  const { rows } = await db.query<{ j: string }>(
    statement(`SELECT ($1::jsonb || ${archivedAtSql('$2::timestamptz')})::text AS j`, [json, archivedAt]),
  );
  return rows[0]!.j;
}

/** Lock key shared by unarchives of a schema and taken alone by its export's commit. */
export function exportLockKey(schemaPath: string): string {
  return `weft_archive_export:${schemaPath}`;
}

/** Whether the record has a staged archived copy (in PostgreSQL, not yet in files). */
export async function isStaged(db: Queryable, schemaPath: string, id: string): Promise<boolean> {
  const { rows } = await db.query<{ staged: boolean }>(
    statement(
      `SELECT EXISTS (SELECT 1 FROM records_archive.records WHERE schema_path = $1 AND record_id = $2) AS staged`,
      [schemaPath, id],
    ),
  );
  return rows[0]?.staged === true;
}

/**
 * The recomputed hashes (records.history_row_hash) of archived history rows read from files
 * (exact JSON rows): audit verify's look-up of the rows a chain covers that live in files.
 */
export async function fileHistoryRowHashes(
  db: Queryable,
  rows: readonly string[],
): Promise<{ event_id: string; hash: string }[]> {
  if (rows.length === 0) return [];
  const result = await db.query<{ event_id: string; hash: string }>(
    statement(
      `SELECT event_id::text, records.history_row_hash(event_id, record_id, "timestamp", actor, operation, old_value, new_value, state, reason) AS hash
       FROM jsonb_populate_recordset(NULL::records_archive.history, $1::jsonb)`,
      [`[${rows.join(',')}]`],
    ),
  );
  return result.rows;
}

/** Staged records (not in hot storage) whose newest copy was archived before `cutoff` (retention). */
export async function expiredStagedRecords(
  db: Queryable,
  schema: CompiledSchema,
  cutoff: string,
  limit: number,
): Promise<string[]> {
  const { rows } = await db.query<{ record_id: string }>(
    `SELECT n.record_id::text FROM (
       SELECT record_id, max(archived_at) AS at FROM records_archive.records WHERE schema_path = $1 GROUP BY record_id) n
     WHERE n.at < $2 AND NOT EXISTS (SELECT 1 FROM ${schema.table} t WHERE t.id = n.record_id)
     ORDER BY n.record_id LIMIT $3`,
    [schema.path, cutoff, limit],
  );
  return rows.map((row) => row.record_id);
}

/** Removes every staged copy and history row of the records `ids` (retention, erasure; the owner). */
export async function deleteStagedRecords(
  db: Queryable,
  schemaPath: string,
  ids: readonly string[],
): Promise<void> {
  await db.query(
    `DELETE FROM records_archive.records WHERE schema_path = $1 AND record_id = ANY($2::uuid[])`,
    [schemaPath, ids],
  );
  await db.query(
    `DELETE FROM records_archive.history WHERE schema_path = $1 AND record_id = ANY($2::uuid[])`,
    [schemaPath, ids],
  );
}

/**
 * Adds to the snapshot table `table` the states in `batches` (exact JSON history rows read from
 * archive files, one per record, in batches): each batch is inserted before the next is read, so
 * only one is held at a time. Returns the rows written.
 */
export async function fillSnapshotFromRows(
  db: Queryable,
  table: string,
  schema: CompiledSchema,
  batches: AsyncIterable<readonly string[]>,
): Promise<number> {
  let written = 0;
  for await (const historyRows of batches) {
    if (historyRows.length === 0) continue;
    const inserted = await db.query(
      `INSERT INTO ${table} SELECT (jsonb_populate_record(NULL::${schema.table}, h.value -> 'state')).* FROM jsonb_array_elements($1::jsonb) AS h`,
      [`[${historyRows.join(',')}]`],
    );
    written += inserted.rowCount ?? 0;
  }
  return written;
}
