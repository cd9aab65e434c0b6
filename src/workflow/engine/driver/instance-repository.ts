import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { InstanceState, InstanceStatus, Variables } from '../runtime/index.js';

/** A process instance as the API shows it. */
export interface InstanceRecord {
  id: string;
  org_id: string;
  counter: number;
  process_key: string;
  definition_id: string;
  state: InstanceStatus;
  business_key: string | null;
  variables: Variables;
  started_at: string;
  ended_at: string | null;
}

interface InstanceRow extends Omit<InstanceRecord, 'counter' | 'started_at' | 'ended_at'> {
  counter: string;
  started_at: Date;
  ended_at: Date | null;
}

const columns =
  'id, org_id, counter, process_key, definition_id, state, business_key, variables, started_at, ended_at';

/** Converts a row (bigint counter as text, dates) to the API shape. */
export function toInstanceRecord(row: InstanceRow): InstanceRecord {
  return {
    ...row,
    counter: Number(row.counter),
    started_at: row.started_at.toISOString(),
    ended_at: row.ended_at?.toISOString() ?? null,
  };
}

/** The root scope's variables of an engine state. */
export function rootVariables(state: InstanceState): Variables {
  return state.scopes[state.rootScopeId]?.variables ?? {};
}

/**
 * Inserts a new instance. Its counter comes from the key's row in the same statement, so it is
 * gap-free (a rolled-back start gives its number back) and the row lock is held only until commit.
 */
export async function insertInstance(
  client: PoolClient,
  input: {
    id: string;
    orgId: string;
    definitionId: string;
    processKey: string;
    businessKey: string | null;
    state: InstanceState;
    now: Date;
  },
): Promise<InstanceRecord> {
  const ended = isEnded(input.state.status) ? input.now : null;
  const { rows } = await client.query<InstanceRow>({
    name: 'workflow.instances.insert',
    text: `WITH c AS (
             UPDATE process_keys SET last_counter = last_counter + 1
             WHERE org_id = $2 AND process_key = $4 RETURNING last_counter
           )
           INSERT INTO process_instances
             (id, org_id, definition_id, process_key, counter, business_key, state, variables, engine_state, started_at, ended_at)
           SELECT $1, $2, $3, $4, c.last_counter, $5, $6, $7, $8, $9, $10 FROM c
           RETURNING ${columns}`,
    values: [
      input.id,
      input.orgId,
      input.definitionId,
      input.processKey,
      input.businessKey,
      input.state.status,
      JSON.stringify(rootVariables(input.state)),
      JSON.stringify(input.state),
      input.now,
      ended,
    ],
  });
  const row = rows[0];
  if (!row) throw new Error(`process key ${input.processKey} has no counter row`);
  return toInstanceRecord(row);
}

/** A locked instance with its engine state. */
export interface LockedInstance {
  record: InstanceRecord;
  engineState: InstanceState;
}

/** Locks an instance row for the rest of the transaction; null when absent. */
export async function lockInstance(client: PoolClient, id: string): Promise<LockedInstance | null> {
  const { rows } = await client.query<InstanceRow & { engine_state: InstanceState }>({
    name: 'workflow.instances.lock',
    text: `SELECT ${columns}, engine_state FROM process_instances WHERE id = $1 FOR UPDATE`,
    values: [id],
  });
  const row = rows[0];
  if (!row) return null;
  const { engine_state, ...record } = row;
  return { record: toInstanceRecord(record), engineState: engine_state };
}

/** Stores a new engine state (and the status and variables derived from it). */
export async function updateInstanceState(
  client: PoolClient,
  id: string,
  state: InstanceState,
  now: Date,
): Promise<InstanceRecord> {
  const { rows } = await client.query<InstanceRow>({
    name: 'workflow.instances.update-state',
    text: `UPDATE process_instances
           SET state = $2, variables = $3, engine_state = $4,
               ended_at = CASE WHEN $2 IN ('completed', 'cancelled', 'terminated') THEN COALESCE(ended_at, $5) END
           WHERE id = $1 RETURNING ${columns}`,
    values: [id, state.status, JSON.stringify(rootVariables(state)), JSON.stringify(state), now],
  });
  const row = rows[0];
  if (!row) throw new Error(`instance ${id} vanished inside its transaction`);
  return toInstanceRecord(row);
}

/** One instance without its engine state. */
export async function findInstance(db: Pool | PoolClient, id: string): Promise<InstanceRecord | null> {
  const { rows } = await db.query<InstanceRow>(`SELECT ${columns} FROM process_instances WHERE id = $1`, [
    id,
  ]);
  return rows[0] ? toInstanceRecord(rows[0]) : null;
}

/** True for the states an instance never leaves. */
export function isEnded(status: InstanceStatus): boolean {
  return status === 'completed' || status === 'cancelled' || status === 'terminated';
}
