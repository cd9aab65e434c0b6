import type { Queryable } from '../../platform/database/queryable.js';

/** An erasure that has started and not finished (`records.pending_erasures`, migration 0021). */
export interface PendingErasure {
  schema_path: string;
  record_id: string;
  actor: string;
  reason: string;
}

/** Records an erasure before anything is removed (kept when one is pending already). */
export async function beginErasure(db: Queryable, erasure: PendingErasure): Promise<void> {
  await db.query(
    `INSERT INTO records.pending_erasures (schema_path, record_id, actor, reason) VALUES ($1, $2, $3, $4)
     ON CONFLICT (schema_path, record_id) DO NOTHING`,
    [erasure.schema_path, erasure.record_id, erasure.actor, erasure.reason],
  );
}

/** Forgets a finished erasure (in the transaction that finishes it). */
export async function finishErasure(db: Queryable, schemaPath: string, id: string): Promise<void> {
  await db.query(`DELETE FROM records.pending_erasures WHERE schema_path = $1 AND record_id = $2`, [
    schemaPath,
    id,
  ]);
}

/** Erasures started more than `ageSeconds` ago (database clock) and not finished: a crash interrupted them. */
export async function interruptedErasures(db: Queryable, ageSeconds: number): Promise<PendingErasure[]> {
  const { rows } = await db.query<PendingErasure>(
    `SELECT schema_path, record_id::text, actor, reason FROM records.pending_erasures
     WHERE requested_at < now() - make_interval(secs => $1) ORDER BY requested_at LIMIT 100`,
    [ageSeconds],
  );
  return rows;
}
