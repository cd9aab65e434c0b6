import type { Queryable } from '../../platform/database/queryable.js';

/** The named statements of `records.auth_audit`: one row per authentication and authorization decision. */

/** One decision as it is written (the log's entry, `outcome` as text). */
export interface AuthAuditInsert {
  at: Date;
  actor: string | null;
  operation: string;
  resource: string;
  strategy: string;
  outcome: string;
  failMode: string;
  requestId: string;
}

/** The filters and page of a read; `null` leaves a filter out. */
export interface AuthAuditFilter {
  actor: string | null;
  outcome: string | null;
  strategy: string | null;
  /** ISO 8601 timestamps: from (inclusive) and until (exclusive). */
  since: string | null;
  until: string | null;
  /** Only entries with a lower `event_id`. */
  before: number | null;
  limit: number;
}

/** One stored decision. */
export interface AuthAuditRow {
  event_id: string;
  at: Date;
  actor: string | null;
  operation: string;
  resource: string;
  strategy: string;
  outcome: string;
  fail_mode: string;
  request_id: string;
}

/** Writes a batch of decisions in one statement. */
export async function insertAuthAuditEntries(
  db: Queryable,
  batch: readonly AuthAuditInsert[],
): Promise<void> {
  await db.query(
    `INSERT INTO records.auth_audit (at, actor, operation, resource, strategy, outcome, fail_mode, request_id)
     SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`,
    [
      batch.map((entry) => entry.at),
      batch.map((entry) => entry.actor),
      batch.map((entry) => entry.operation),
      batch.map((entry) => entry.resource),
      batch.map((entry) => entry.strategy),
      batch.map((entry) => entry.outcome),
      batch.map((entry) => entry.failMode),
      batch.map((entry) => entry.requestId),
    ],
  );
}

/** The decisions that match the filters, newest first. */
export async function listAuthAuditEntries(db: Queryable, filter: AuthAuditFilter): Promise<AuthAuditRow[]> {
  const { rows } = await db.query<AuthAuditRow>(
    `SELECT event_id, at, actor, operation, resource, strategy, outcome, fail_mode, request_id
         FROM records.auth_audit
         WHERE ($1::text IS NULL OR actor = $1) AND ($2::text IS NULL OR outcome = $2)
           AND ($3::text IS NULL OR strategy = $3) AND ($4::timestamptz IS NULL OR at >= $4)
           AND ($5::timestamptz IS NULL OR at < $5) AND ($6::bigint IS NULL OR event_id < $6)
         ORDER BY event_id DESC LIMIT $7`,
    [filter.actor, filter.outcome, filter.strategy, filter.since, filter.until, filter.before, filter.limit],
  );
  return rows;
}

/**
 * Deletes up to `limit` entries written before `before`, oldest first (retention). Rows another
 * instance's purge holds are skipped, not waited for. Runs on the owner's pool: the runtime login
 * may only append to the log.
 */
export async function deleteAuthAuditEntriesBefore(
  db: Queryable,
  before: Date,
  limit: number,
): Promise<number> {
  const outcome = await db.query(
    `DELETE FROM records.auth_audit WHERE event_id IN (
       SELECT event_id FROM records.auth_audit WHERE at < $1 ORDER BY at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [before, limit],
  );
  return outcome.rowCount ?? 0;
}
