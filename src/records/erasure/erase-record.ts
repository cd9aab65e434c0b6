import { withTransaction, type Pool } from '../../platform/database/pool.js';
import { deleteStagedRecords, exportLockKey, isStaged, inHotStorage } from '../archive/archive-repository.js';
import type { ArchiveFiles } from '../archive/files/archive-files.js';
import { rewriteWithout } from '../archive/files/rewrite-file-set.js';
import {
  appendErasureEvent,
  eraseAuditValues,
  newestAuditEvent,
  restoreAuditRows,
} from '../audit/audit-repository.js';
import { historyTable } from '../ddl/change-triggers.js';
import { deleteFromSnapshots } from '../history/snapshot-job.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import { beginErasure, finishErasure, interruptedErasures } from './pending-erasures.js';

/** What an erasure removed. */
export interface ErasureOutcome {
  /** Whether the record was in hot storage. */
  hot: boolean;
  history_rows: number;
  staged_copies: number;
  file_sets: number;
  snapshot_rows: number;
  /** Audit events whose values were erased (their place in the chain stays). */
  audit_events: number;
}

/** Whether anything of the record is known: hot, staged, in files or in the audit log. */
async function known(
  pool: Pool,
  files: ArchiveFiles | undefined,
  schema: CompiledSchema,
  id: string,
): Promise<boolean> {
  return (
    (await inHotStorage(pool, schema, id)) ||
    (await isStaged(pool, schema.path, id)) ||
    (await newestAuditEvent(pool, schema.path, id)) !== undefined ||
    (files !== undefined && (await files.holds(pool, schema.path, id)))
  );
}

/**
 * Erases one record's data everywhere it lives (docs/records/archive.md, "Erasure"), as the
 * owner: the row in hot storage and its history, staged copies and history, snapshot rows, and
 * every archive file set holding it (rewritten without it); the values of its audit events, which
 * keep their place in the chain, followed by an ERASE event carrying the reason. The erasure is
 * recorded as pending first and finished in one transaction, so one a crash interrupts is finished
 * by `finishInterruptedErasures`. Audit events that live in files come back into the audit log
 * before the files lose them. Undefined when nothing of the record is known.
 */
export async function eraseRecord(
  pool: Pool,
  files: ArchiveFiles | undefined,
  schema: CompiledSchema,
  id: string,
  actor: string,
  reason: string,
  options: { resume?: boolean } = {},
): Promise<ErasureOutcome | undefined> {
  if (!options.resume && !(await known(pool, files, schema, id))) return undefined;
  await beginErasure(pool, { schema_path: schema.path, record_id: id, actor, reason });
  let fileSets = 0;
  if (files) {
    await restoreAuditRows(pool, await files.rowsOf(pool, schema.path, id, 'audit'));
    const sets = new Map(
      (await files.copiesOf(pool, schema.path, id)).map((copy) => [copy.entry.file_set_id, copy.entry]),
    );
    for (const entry of sets.values())
      if (await rewriteWithout(pool, files, schema, entry, [id])) fileSets += 1;
  }
  return withTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [exportLockKey(schema.path)]);
    await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`weft_unarchive:${schema.path}:${id}`]);
    await client.query(
      `SELECT set_config('weft.operation', 'ERASE', true), set_config('weft.actor', $1, true), set_config('weft.reason', $2, true)`,
      [actor, reason],
    );
    const deleted = await client.query(`DELETE FROM ${schema.table} WHERE id = $1`, [id]);
    await client.query(
      `SELECT set_config('weft.operation', '', true), set_config('weft.actor', '', true), set_config('weft.reason', '', true)`,
    );
    const hot = (deleted.rowCount ?? 0) > 0;
    const historyRows = schema.definition.timeMachine
      ? ((await client.query(`DELETE FROM ${historyTable(schema.definition)} WHERE record_id = $1`, [id]))
          .rowCount ?? 0)
      : 0;
    const staged = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM records_archive.records WHERE schema_path = $1 AND record_id = $2`,
      [schema.path, id],
    );
    await deleteStagedRecords(client, schema.path, [id]);
    if (!hot) {
      const newest = await newestAuditEvent(client, schema.path, id);
      if (newest && newest.operation !== 'ERASE')
        await appendErasureEvent(client, schema.path, id, actor, newest.version, reason);
    }
    const auditEvents = await eraseAuditValues(client, schema.path, id);
    const snapshotRows = await deleteFromSnapshots(client, schema.path, id);
    await finishErasure(client, schema.path, id);
    return {
      hot,
      history_rows: historyRows,
      staged_copies: Number(staged.rows[0]?.n ?? 0),
      file_sets: fileSets,
      snapshot_rows: snapshotRows,
      audit_events: auditEvents,
    };
  });
}

/**
 * Finishes erasures a crash interrupted (pending for more than `ageSeconds`): each runs again from
 * the start, which is safe, since every step only removes what is still there. Returns how many.
 */
export async function finishInterruptedErasures(
  pool: Pool,
  files: ArchiveFiles | undefined,
  registry: SchemaRegistry,
  ageSeconds: number,
): Promise<number> {
  const pending = await interruptedErasures(pool, ageSeconds);
  let finished = 0;
  for (const erasure of pending) {
    const schema = registry.all().find((candidate) => candidate.path === erasure.schema_path);
    if (!schema) continue;
    await eraseRecord(pool, files, schema, erasure.record_id, erasure.actor, erasure.reason, {
      resume: true,
    });
    finished += 1;
  }
  return finished;
}
