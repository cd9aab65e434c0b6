import type { Queryable } from '../records/record-repository.js';
import { SqlParams, statement } from '../records/statement.js';

/** An audit row as read. */
export interface AuditRow {
  event_id: string;
  timestamp: string;
  actor: string;
  schema_path: string;
  entity_id: string;
  operation: string;
  version: number;
  old_value: Record<string, unknown> | null;
  new_value: Record<string, unknown> | null;
  previous_hash: string;
  hash: string;
}

const auditColumns = `event_id::text, to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "timestamp",
  actor, schema_path, entity_id::text, operation, version, old_value, new_value, previous_hash, hash`;

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
  const text = `SELECT ${auditColumns} FROM records.audit_events${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY audit_events.event_id DESC LIMIT ${limit + 1}`;
  const { rows } = await db.query<AuditRow>(statement(text, params.values));
  return rows;
}

/** One link of a record's chain with the hash recomputed by Postgres from the stored content. */
export interface ChainLink {
  event_id: string;
  previous_hash: string;
  hash: string;
  recomputed: string;
}

/** A record's audit chain in order, each event's hash recomputed from its stored fields. */
export async function auditChain(db: Queryable, schemaPath: string, entityId: string): Promise<ChainLink[]> {
  const { rows } = await db.query<ChainLink>(
    statement(
      `SELECT event_id::text, previous_hash, hash,
         encode(sha256(convert_to(previous_hash || records.canonical_json(jsonb_build_object(
           'event_id', event_id,
           'timestamp', to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
           'actor', actor, 'schema', schema_path, 'entity_id', entity_id, 'operation', operation,
           'version', version, 'old_value', old_value, 'new_value', new_value)), 'UTF8')), 'hex') AS recomputed
       FROM records.audit_events WHERE schema_path = $1 AND entity_id = $2 ORDER BY audit_events.event_id`,
      [schemaPath, entityId],
    ),
  );
  return rows;
}
