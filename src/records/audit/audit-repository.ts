import type { Queryable } from '../../platform/database/queryable.js';
import { SqlParams, statement } from '../records/statement.js';

/** An audit row as read, its values as PostgreSQL's JSON text. */
export interface AuditRow {
  event_id: string;
  timestamp: string;
  actor: string;
  schema_path: string;
  entity_id: string;
  operation: string;
  version: number;
  old_value: string | null;
  new_value: string | null;
  previous_hash: string;
  hash: string;
  /** The history row this event covers (time-machine schemas; null for legacy events). */
  history_event_id: string | null;
  history_hash: string | null;
  /** When the event's values were erased (ISO 8601 UTC); null for an intact event. */
  erased_at: string | null;
}

const auditColumns = `event_id::text, to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "timestamp",
  actor, schema_path, entity_id::text, operation, version, old_value::text AS old_value, new_value::text AS new_value, previous_hash, hash,
  history_event_id::text, history_hash, to_char(erased_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS erased_at`;

/** Filters of `GET /platform/audit` (all optional; `beforeEventId` is the cursor position). */
export interface AuditFilter {
  schemas?: string[];
  entityId?: string;
  actor?: string;
  operation?: string;
  from?: string;
  to?: string;
  beforeEventId?: string;
  /** SQL conditions that hide the events of records the caller may not read (access layer 4). */
  visible?: string[];
  /** Events of the named record read from archive files (exact JSON rows), listed with the log's. */
  archivedRows?: readonly string[];
}

/** Audit events matching the filter, newest first; one more than `limit` tells there are more. */
export async function listAudit(db: Queryable, filter: AuditFilter, limit: number): Promise<AuditRow[]> {
  const params = new SqlParams();
  const where: string[] = [];
  if (filter.schemas) where.push(`schema_path = ANY(${params.add(filter.schemas, 'text[]')})`);
  if (filter.entityId) where.push(`entity_id = ${params.add(filter.entityId, 'uuid')}`);
  if (filter.actor) where.push(`actor = ${params.add(filter.actor, 'text')}`);
  if (filter.operation) where.push(`operation = ${params.add(filter.operation, 'text')}`);
  if (filter.from) where.push(`"timestamp" >= ${params.add(filter.from, 'timestamptz')}`);
  if (filter.to) where.push(`"timestamp" <= ${params.add(filter.to, 'timestamptz')}`);
  if (filter.beforeEventId) where.push(`event_id < ${params.add(filter.beforeEventId, 'bigint')}`);
  if (filter.visible) where.push(...filter.visible);
  const archived = filter.archivedRows ?? [];
  const source =
    archived.length === 0
      ? 'records.audit_events'
      : `(SELECT * FROM records.audit_events UNION SELECT * FROM jsonb_populate_recordset(NULL::records.audit_events, ${params.add(`[${archived.join(',')}]`, 'jsonb')})) AS audit_events`;
  const text = `SELECT ${auditColumns} FROM ${source}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY audit_events.event_id DESC LIMIT ${limit + 1}`;
  const { rows } = await db.query<AuditRow>(statement(text, params.values));
  return rows;
}

/** One link of a record's chain with the hash recomputed by Postgres from the stored content. */
export interface ChainLink {
  event_id: string;
  operation: string;
  version: number;
  previous_hash: string;
  hash: string;
  recomputed: string;
  history_event_id: string | null;
  history_hash: string | null;
  /** When the event's values were erased (ISO 8601 UTC); null for an intact event. */
  erased_at: string | null;
}

const erasedAtSql = `to_char(erased_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS erased_at`;

// The event's hashed content (records.append_audit): the history keys only when it has a link,
// so events written before history joined the chain keep their hash.
const recomputedHashSql = `encode(sha256(convert_to(previous_hash || records.canonical_json(jsonb_build_object(
    'event_id', event_id,
    'timestamp', to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'actor', actor, 'schema', schema_path, 'entity_id', entity_id, 'operation', operation,
    'version', version, 'old_value', old_value, 'new_value', new_value)
    || CASE WHEN history_hash IS NULL THEN '{}'::jsonb
       ELSE jsonb_build_object('history_event_id', history_event_id, 'history_hash', history_hash) END), 'UTF8')), 'hex')`;

/** A record's audit chain in order, each event's hash recomputed from its stored fields. */
export async function auditChain(db: Queryable, schemaPath: string, entityId: string): Promise<ChainLink[]> {
  const { rows } = await db.query<ChainLink>(
    statement(
      `SELECT event_id::text, operation, version, previous_hash, hash, ${recomputedHashSql} AS recomputed,
         history_event_id::text, history_hash, ${erasedAtSql}
       FROM records.audit_events WHERE schema_path = $1 AND entity_id = $2 ORDER BY audit_events.event_id`,
      [schemaPath, entityId],
    ),
  );
  return rows;
}

/**
 * A record's chain from its archived events (exact JSON rows read from archive files) merged with
 * those still in the audit log, each event once, in order, hashes recomputed as `auditChain` does.
 */
export async function auditChainWithArchived(
  db: Queryable,
  schemaPath: string,
  entityId: string,
  archivedRows: readonly string[],
): Promise<ChainLink[]> {
  const { rows } = await db.query<ChainLink>(
    statement(
      `SELECT DISTINCT ON (audit_events.event_id) event_id::text, operation, version, previous_hash, hash, ${recomputedHashSql} AS recomputed,
         history_event_id::text, history_hash, ${erasedAtSql}
       FROM (SELECT * FROM records.audit_events WHERE schema_path = $1 AND entity_id = $2
             UNION ALL
             SELECT * FROM jsonb_populate_recordset(NULL::records.audit_events, $3::jsonb) WHERE schema_path = $1 AND entity_id = $2
       ) AS audit_events ORDER BY audit_events.event_id`,
      [schemaPath, entityId, `[${archivedRows.join(',')}]`],
    ),
  );
  return rows;
}

/** The audit events of archived records `ids`, each as its exact JSON (`row_to_json`), for export. */
export async function auditRowsOf(
  db: Queryable,
  schemaPath: string,
  ids: readonly string[],
): Promise<{ record_id: string; event_id: string; row: string }[]> {
  const { rows } = await db.query<{ record_id: string; event_id: string; row: string }>(
    `SELECT e.entity_id::text AS record_id, e.event_id::text, row_to_json(e)::text AS "row"
     FROM records.audit_events e WHERE e.schema_path = $1 AND e.entity_id = ANY($2::uuid[])`,
    [schemaPath, ids],
  );
  return rows;
}

/** Removes every audit event of the records `ids` (retention of archived records; the owner only). */
export async function deleteAuditEventsOf(
  db: Queryable,
  schemaPath: string,
  ids: readonly string[],
): Promise<void> {
  await db.query(`DELETE FROM records.audit_events WHERE schema_path = $1 AND entity_id = ANY($2::uuid[])`, [
    schemaPath,
    ids,
  ]);
}

/**
 * Erases the values of a record's audit events (all but ERASE events): they keep their place,
 * hashes and metadata, and `erased_at` marks them. Returns how many were erased now.
 */
export async function eraseAuditValues(db: Queryable, schemaPath: string, id: string): Promise<number> {
  const result = await db.query(
    `UPDATE records.audit_events SET old_value = NULL, new_value = NULL, erased_at = now()
     WHERE schema_path = $1 AND entity_id = $2 AND operation <> 'ERASE' AND erased_at IS NULL`,
    [schemaPath, id],
  );
  return result.rowCount ?? 0;
}

/** The newest audit event of a record (operation and version), or undefined when it has none. */
export async function newestAuditEvent(
  db: Queryable,
  schemaPath: string,
  id: string,
): Promise<{ operation: string; version: number } | undefined> {
  const { rows } = await db.query<{ operation: string; version: number }>(
    `SELECT operation, version FROM records.audit_events WHERE schema_path = $1 AND entity_id = $2 ORDER BY event_id DESC LIMIT 1`,
    [schemaPath, id],
  );
  return rows[0];
}

/**
 * Appends an ERASE event to a record's chain, as the change trigger does for a record in hot
 * storage: no values, `new_value` only `{reason}` (the owner only).
 */
export async function appendErasureEvent(
  db: Queryable,
  schemaPath: string,
  id: string,
  actor: string,
  version: number,
  reason: string,
): Promise<void> {
  await db.query(
    `SELECT records.append_audit($1, $2::uuid, 'ERASE', $3, now(), $4, NULL, jsonb_build_object('reason', $5::text), NULL, NULL)`,
    [schemaPath, id, actor, version, reason],
  );
}

/** Removes exported audit events (the owner only: the archive export moves them to a file). */
export async function deleteAuditEvents(db: Queryable, eventIds: readonly string[]): Promise<void> {
  await db.query(`DELETE FROM records.audit_events WHERE event_id = ANY($1::bigint[])`, [eventIds]);
}

/**
 * Puts archived audit events (exact JSON rows from a file whose checksum matched the manifest) back
 * into the audit log, skipping those there already, so a record brought back continues its chain.
 */
export async function restoreAuditRows(db: Queryable, rows: readonly string[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO records.audit_events SELECT * FROM jsonb_populate_recordset(NULL::records.audit_events, $1::jsonb)
     ON CONFLICT (event_id) DO NOTHING`,
    [`[${rows.join(',')}]`],
  );
}

/** The newest event of a record's chain, as the anchor job signs it. */
export interface ChainHead {
  schema_path: string;
  entity_id: string;
  event_id: string;
  hash: string;
}

/**
 * The head of every chain with an event after `afterEventId`, and the largest event id seen (the
 * anchor job's window; `afterEventId` itself when there is none).
 */
export async function chainHeadsAfter(
  db: Queryable,
  afterEventId: string,
): Promise<{ heads: ChainHead[]; upTo: string }> {
  const { rows } = await db.query<ChainHead>(
    statement(
      `SELECT DISTINCT ON (schema_path, entity_id) schema_path, entity_id::text, event_id::text, hash
       FROM records.audit_events WHERE event_id > $1::bigint
       ORDER BY schema_path, entity_id, event_id DESC`,
      [afterEventId],
    ),
  );
  let upTo = BigInt(afterEventId);
  for (const row of rows) if (BigInt(row.event_id) > upTo) upTo = BigInt(row.event_id);
  return { heads: rows, upTo: upTo.toString() };
}

/** The stored hash of each of these events that still exists, by event id. */
export async function storedEventHashes(db: Queryable, eventIds: string[]): Promise<Map<string, string>> {
  if (eventIds.length === 0) return new Map();
  const { rows } = await db.query<{ event_id: string; hash: string }>(
    statement(`SELECT event_id::text, hash FROM records.audit_events WHERE event_id = ANY($1::bigint[])`, [
      eventIds,
    ]),
  );
  return new Map(rows.map((row) => [row.event_id, row.hash]));
}
