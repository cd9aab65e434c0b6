import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import {
  instanceColumns,
  toInstanceRecord,
  type InstanceRecord,
  type InstanceRow,
} from './process-instances.js';

/*
 * The `suspended` flags of `process_instances` and `process_definitions` (migration 0019). A change
 * of an instance's flag and its history entry (`instanceSuspended` / `instanceResumed`, with the
 * actor) are one statement. The flag is read where work is handed out: the engine's guarded update
 * (process-instances.ts), fetch-and-lock (external-tasks.ts), the timer and connector claims, and
 * message and signal correlation (event-subscriptions.ts).
 */

type Db = Pool | PoolClient;

/**
 * Sets the flag of a running instance and records the change; null when the instance is absent,
 * ended, or already in that state (nothing written then).
 */
export async function setInstanceSuspended(
  db: Db,
  input: { id: string; suspended: boolean; actor: string; now: Date },
): Promise<InstanceRecord | null> {
  const { rows } = await db.query<InstanceRow>({
    name: 'workflow.instances.set-suspended',
    text: `WITH changed AS (
             UPDATE process_instances SET suspended = $2
             WHERE id = $1 AND ended_at IS NULL AND suspended <> $2
             RETURNING ${instanceColumns}
           ), entry AS (
             INSERT INTO process_history (process_instance_id, kind, element_id, element_type, token_id, at, data)
             SELECT id, CASE WHEN $2 THEN 'instanceSuspended' ELSE 'instanceResumed' END, process_key, 'process',
                    NULL, $3, jsonb_build_object('actor', $4::text)
             FROM changed
           )
           SELECT * FROM changed`,
    values: [input.id, input.suspended, input.now, input.actor],
  });
  return rows[0] ? toInstanceRecord(rows[0]) : null;
}

/**
 * Sets the flag of a deployed version and of all its running instances, recording each instance's
 * change; null when the version is absent or a draft. Returns how many instances changed.
 */
export async function setDefinitionSuspended(
  db: Db,
  input: { definitionId: string; suspended: boolean; actor: string; now: Date },
): Promise<{ instances: number } | null> {
  const { rows } = await db.query<{ definitions: string; instances: string }>({
    name: 'workflow.definitions.set-suspended',
    text: `WITH definition AS (
             UPDATE process_definitions SET suspended = $2 WHERE id = $1 AND NOT draft RETURNING id
           ), changed AS (
             UPDATE process_instances SET suspended = $2
             WHERE definition_id IN (SELECT id FROM definition) AND ended_at IS NULL AND suspended <> $2
             RETURNING id, process_key
           ), entry AS (
             INSERT INTO process_history (process_instance_id, kind, element_id, element_type, token_id, at, data)
             SELECT id, CASE WHEN $2 THEN 'instanceSuspended' ELSE 'instanceResumed' END, process_key, 'process',
                    NULL, $3, jsonb_build_object('actor', $4::text, 'definitionId', $1::text)
             FROM changed
           )
           SELECT (SELECT count(*) FROM definition) AS definitions, (SELECT count(*) FROM changed) AS instances`,
    values: [input.definitionId, input.suspended, input.now, input.actor],
  });
  const row = rows[0];
  if (!row || Number(row.definitions) === 0) return null;
  return { instances: Number(row.instances) };
}

/** True when the version exists and is suspended. */
export async function isDefinitionSuspended(db: Db, definitionId: string): Promise<boolean> {
  const { rows } = await db.query<{ suspended: boolean }>({
    name: 'workflow.definitions.is-suspended',
    text: 'SELECT suspended FROM process_definitions WHERE id = $1',
    values: [definitionId],
  });
  return rows[0]?.suspended === true;
}
