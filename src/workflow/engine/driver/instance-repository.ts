import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { InstanceState, InstanceStatus, Variables } from '../runtime/index.js';
import type { StatementBuilder, WriteStatement } from '../store/write-statement.js';

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
  /** The instance whose call activity started this one; null for a top-level instance. */
  parent_instance_id: string | null;
}

/** A row of {@link instanceColumns}. */
export interface InstanceRow extends Omit<InstanceRecord, 'counter' | 'started_at' | 'ended_at'> {
  counter: string;
  started_at: Date;
  ended_at: Date | null;
}

/** The columns of an {@link InstanceRecord}. */
export const instanceColumns =
  'id, org_id, counter, process_key, definition_id, state, business_key, variables, started_at, ended_at, parent_instance_id';

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
 * Adds the new instance's counter as the first CTE (`counter`) of `statement`: the key's row gives
 * the next number in the same statement, so the counter is gap-free (a rolled-back start gives its
 * number back) and the row lock is held only until commit. With `latestEnabled`, the counter (and so
 * the whole start) only happens if the definition is still the latest enabled version of its key:
 * the check a start by key made on a cached definition, redone atomically. Returns the guard the
 * effects must check.
 */
export function addInstanceCounter(
  statement: WriteStatement,
  input: { orgId: string; processKey: string; definitionId: string; latestEnabled: boolean },
): string {
  const org = statement.param(input.orgId);
  const key = statement.param(input.processKey);
  const stillLatest = input.latestEnabled
    ? `AND ${stillLatestEnabled(statement.param(input.definitionId), org, key)}`
    : '';
  statement.with(
    'counter',
    `UPDATE process_keys SET last_counter = last_counter + 1
     WHERE org_id = ${org} AND process_key = ${key} ${stillLatest}
     RETURNING last_counter`,
  );
  return 'EXISTS (SELECT 1 FROM counter)';
}

/**
 * SQL that holds when the definition `definitionSql` is still the latest enabled version of the key
 * (`orgSql`, `keySql`): the check a start by key made on a cached definition, redone atomically.
 */
export function stillLatestEnabled(definitionSql: string, orgSql: string, keySql: string): string {
  return `EXISTS (SELECT 1 FROM process_definitions d
                  WHERE d.id = ${definitionSql} AND d.org_id = ${orgSql}
                    AND d.process_key = ${keySql} AND NOT d.draft AND NOT d.disabled
                    AND NOT EXISTS (SELECT 1 FROM process_definitions n
                                    WHERE n.org_id = ${orgSql} AND n.process_key = ${keySql}
                                      AND NOT n.draft AND NOT n.disabled AND n.version > d.version))`;
}

/**
 * Inserts a new instance as the final part of `statement`, whose first CTE is the counter (see
 * {@link addInstanceCounter}). Null when the counter's guard failed and nothing was written.
 */
export async function insertInstance(
  client: Pool | PoolClient,
  statement: WriteStatement,
  input: {
    id: string;
    orgId: string;
    definitionId: string;
    processKey: string;
    businessKey: string | null;
    state: InstanceState;
    now: Date;
    /** The call activity wait that starts this instance. */
    parent?: { instanceId: string; waitId: string };
  },
): Promise<InstanceRecord | null> {
  const ended = isEnded(input.state.status) ? input.now : null;
  const rows = await statement.run<InstanceRow>(
    client,
    'insert_instance',
    `INSERT INTO process_instances
       (id, org_id, definition_id, process_key, counter, business_key, state, variables, engine_state, started_at, ended_at,
        parent_instance_id, parent_wait_id)
     SELECT ${statement.param(input.id)}, ${statement.param(input.orgId)}, ${statement.param(input.definitionId)},
            ${statement.param(input.processKey)}, counter.last_counter,
            ${statement.param(input.businessKey)}, ${statement.param(input.state.status)},
            ${statement.param(JSON.stringify(rootVariables(input.state)))}, ${statement.param(JSON.stringify(input.state))},
            ${statement.param(input.now)}, ${statement.param(ended)},
            ${statement.param(input.parent?.instanceId ?? null)}, ${statement.param(input.parent?.waitId ?? null)}
     FROM counter
     RETURNING ${instanceColumns}`,
  );
  return rows[0] ? toInstanceRecord(rows[0]) : null;
}

/** An instance with its engine state, as read (without a lock) for an engine call. */
export interface StoredInstance {
  record: InstanceRecord;
  engineState: InstanceState;
  revision: number;
}

/** The columns a {@link StoredInstance} is made of, qualified by `alias` (for joins). */
export function storedInstanceColumns(alias: string): string {
  return [...instanceColumns.split(', '), 'engine_state', 'revision']
    .map((column) => `${alias}.${column}`)
    .join(', ');
}

/** The row of {@link storedInstanceColumns}. */
export type StoredInstanceRow = InstanceRow & { engine_state: InstanceState; revision: number };

/** Converts a row of {@link storedInstanceColumns}. */
export function toStoredInstance(row: StoredInstanceRow): StoredInstance {
  const { engine_state, revision, ...record } = row;
  return { record: toInstanceRecord(record), engineState: engine_state, revision };
}

/** Reads an instance with its engine state and revision; null when absent. */
export async function readInstance(db: Pool | PoolClient, id: string): Promise<StoredInstance | null> {
  const { rows } = await db.query<StoredInstanceRow>({
    name: 'workflow.instances.read',
    text: `SELECT ${storedInstanceColumns('i')} FROM process_instances i WHERE i.id = $1`,
    values: [id],
  });
  const row = rows[0];
  return row ? toStoredInstance(row) : null;
}

/** Several instances by id, in one query (those that exist). */
export async function readInstances(
  db: Pool | PoolClient,
  ids: readonly string[],
): Promise<StoredInstance[]> {
  const { rows } = await db.query<StoredInstanceRow>({
    name: 'workflow.instances.read-many',
    text: `SELECT ${storedInstanceColumns('i')} FROM process_instances i WHERE i.id = ANY($1::uuid[])`,
    values: [ids],
  });
  return rows.map(toStoredInstance);
}

/**
 * Adds the guarded update of an instance as the first CTE (`instance_update`) of `statement`: it
 * changes the row only if its revision is still `expectedRevision` and `condition` (extra SQL,
 * e.g. "the worker still holds the task") holds. Returns the guard the effects must check.
 */
export function addGuardedUpdate(
  statement: StatementBuilder,
  input: { id: string; state: InstanceState; now: Date; expectedRevision: number; condition: string | null },
): string {
  const status = statement.param(input.state.status);
  statement.with(
    'instance_update',
    `UPDATE process_instances
     SET state = ${status}, variables = ${statement.param(JSON.stringify(rootVariables(input.state)))},
         engine_state = ${statement.param(JSON.stringify(input.state))}, revision = revision + 1,
         ended_at = CASE WHEN ${status} IN ('completed', 'cancelled', 'terminated') THEN COALESCE(ended_at, ${statement.param(input.now)}) END
     WHERE id = ${statement.param(input.id)} AND revision = ${statement.param(input.expectedRevision)}
       ${input.condition ? `AND ${input.condition}` : ''}
     RETURNING ${instanceColumns}`,
  );
  return 'EXISTS (SELECT 1 FROM instance_update)';
}

/** Runs a statement whose first CTE is the guarded update; null when the guard failed. */
export async function runGuardedUpdate(
  db: Pool | PoolClient,
  statement: WriteStatement,
): Promise<InstanceRecord | null> {
  const rows = await statement.run<InstanceRow>(db, 'select_update', 'SELECT * FROM instance_update');
  return rows[0] ? toInstanceRecord(rows[0]) : null;
}

/** One instance without its engine state. */
export async function findInstance(db: Pool | PoolClient, id: string): Promise<InstanceRecord | null> {
  const { rows } = await db.query<InstanceRow>(
    `SELECT ${instanceColumns} FROM process_instances WHERE id = $1`,
    [id],
  );
  return rows[0] ? toInstanceRecord(rows[0]) : null;
}

/** True for the states an instance never leaves. */
export function isEnded(status: InstanceStatus): boolean {
  return status === 'completed' || status === 'cancelled' || status === 'terminated';
}
