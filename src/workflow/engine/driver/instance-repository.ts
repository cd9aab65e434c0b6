import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { InstanceState, InstanceStatus, Variables } from '../runtime/index.js';
import type { StatementBuilder, WriteStatement } from './write-statement.js';

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

interface InstanceRow extends Omit<InstanceRecord, 'counter' | 'started_at' | 'ended_at'> {
  counter: string;
  started_at: Date;
  ended_at: Date | null;
}

const columns =
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
    ? `AND EXISTS (SELECT 1 FROM process_definitions d
                   WHERE d.id = ${statement.param(input.definitionId)} AND d.org_id = ${org}
                     AND d.process_key = ${key} AND NOT d.draft AND NOT d.disabled
                     AND NOT EXISTS (SELECT 1 FROM process_definitions n
                                     WHERE n.org_id = ${org} AND n.process_key = ${key}
                                       AND NOT n.draft AND NOT n.disabled AND n.version > d.version))`
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
     RETURNING ${columns}`,
  );
  return rows[0] ? toInstanceRecord(rows[0]) : null;
}

/** A new top-level instance of {@link insertInstances}. */
export interface NewInstance {
  id: string;
  orgId: string;
  definitionId: string;
  processKey: string;
  state: InstanceState;
  now: Date;
}

function countersOf(instances: readonly NewInstance[]) {
  const keys = new Map<string, { orgId: string; processKey: string; count: number }>();
  const ranks = instances.map((instance) => {
    const id = JSON.stringify([instance.orgId, instance.processKey]);
    const key = keys.get(id) ?? { orgId: instance.orgId, processKey: instance.processKey, count: 0 };
    keys.set(id, key);
    return ++key.count;
  });
  return { counted: [...keys.values()], ranks };
}

/**
 * Locks the counter rows of the keys of `instances` in one order, so that two transactions
 * starting instances of several keys each never deadlock (see {@link addNewInstances}).
 */
export async function lockInstanceCounters(
  client: PoolClient,
  instances: readonly NewInstance[],
): Promise<void> {
  const { counted } = countersOf(instances);
  await client.query({
    name: 'workflow.instances.lock-counters',
    text: `SELECT 1 FROM process_keys k
           JOIN unnest($1::uuid[], $2::text[]) AS c(org_id, process_key)
             ON k.org_id = c.org_id AND k.process_key = c.process_key
           ORDER BY k.org_id, k.process_key FOR UPDATE OF k`,
    values: [counted.map((k) => k.orgId), counted.map((k) => k.processKey)],
  });
}

/**
 * Adds the insert of several new top-level instances, with consecutive counters per key, as the
 * first CTEs of `statement` (`counters`, then `new_instances`); an instance whose key has no counter
 * row is left out. Returns the guard of their effects, given the SQL of a row's instance id.
 */
export function addNewInstances(
  statement: StatementBuilder,
  instances: readonly NewInstance[],
): (instanceIdSql: string) => string {
  const { counted, ranks } = countersOf(instances);
  const p = (values: unknown[], type: string) => `${statement.param(values)}::${type}[]`;
  statement.with(
    'counters',
    `UPDATE process_keys k SET last_counter = k.last_counter + c.n
     FROM unnest(${p(
       counted.map((k) => k.orgId),
       'uuid',
     )}, ${p(
       counted.map((k) => k.processKey),
       'text',
     )},
                 ${p(
                   counted.map((k) => k.count),
                   'bigint',
                 )}) AS c(org_id, process_key, n)
     WHERE k.org_id = c.org_id AND k.process_key = c.process_key
     RETURNING k.org_id, k.process_key, k.last_counter - c.n AS base`,
  );
  statement.with(
    'new_instances',
    `INSERT INTO process_instances
       (id, org_id, definition_id, process_key, counter, state, variables, engine_state, started_at, ended_at)
     SELECT s.id, s.org_id, s.definition_id, s.process_key, counters.base + s.rank, s.state, s.variables,
            s.engine_state, s.now,
            CASE WHEN s.state IN ('completed', 'cancelled', 'terminated') THEN s.now END
     FROM unnest(${p(
       instances.map((i) => i.id),
       'uuid',
     )}, ${p(
       instances.map((i) => i.orgId),
       'uuid',
     )},
                 ${p(
                   instances.map((i) => i.definitionId),
                   'uuid',
                 )}, ${p(
                   instances.map((i) => i.processKey),
                   'text',
                 )},
                 ${p(ranks, 'bigint')}, ${p(
                   instances.map((i) => i.state.status),
                   'text',
                 )},
                 ${p(
                   instances.map((i) => JSON.stringify(rootVariables(i.state))),
                   'jsonb',
                 )},
                 ${p(
                   instances.map((i) => JSON.stringify(i.state)),
                   'jsonb',
                 )}, ${p(
                   instances.map((i) => i.now),
                   'timestamptz',
                 )})
       AS s(id, org_id, definition_id, process_key, rank, state, variables, engine_state, now)
     JOIN counters ON counters.org_id = s.org_id AND counters.process_key = s.process_key
     RETURNING ${columns}`,
  );
  return (instanceIdSql) => `${instanceIdSql} IN (SELECT id FROM new_instances)`;
}

/** Runs a statement of {@link addNewInstances}; the inserted instances by id. */
export async function runNewInstances(
  client: PoolClient,
  statement: WriteStatement,
): Promise<Map<string, InstanceRecord>> {
  const rows = await statement.run<InstanceRow>(client, 'insert_instances', 'SELECT * FROM new_instances');
  return new Map(rows.map((row) => [row.id, toInstanceRecord(row)]));
}

/** An instance with its engine state, as read (without a lock) for an engine call. */
export interface StoredInstance {
  record: InstanceRecord;
  engineState: InstanceState;
  revision: number;
}

/** The columns a {@link StoredInstance} is made of, qualified by `alias` (for joins). */
export function storedInstanceColumns(alias: string): string {
  return [...columns.split(', '), 'engine_state', 'revision']
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
     RETURNING ${columns}`,
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

/** The new state of one instance of {@link addGuardedUpdates}. */
export interface GuardedUpdate {
  id: string;
  state: InstanceState;
  now: Date;
  expectedRevision: number;
}

/**
 * Adds the guarded updates of several instances as one CTE (`instance_update`) of `statement`:
 * each row changes only if its revision is still the expected one. Returns the guard of the
 * effects, given the SQL of a written row's instance id.
 */
export function addGuardedUpdates(
  statement: StatementBuilder,
  updates: readonly GuardedUpdate[],
): (instanceIdSql: string) => string {
  const p = (values: unknown[], type: string) => `${statement.param(values)}::${type}[]`;
  statement.with(
    'instance_update',
    `UPDATE process_instances i
     SET state = u.state, variables = u.variables, engine_state = u.engine_state, revision = i.revision + 1,
         ended_at = CASE WHEN u.state IN ('completed', 'cancelled', 'terminated') THEN COALESCE(i.ended_at, u.now) END
     FROM unnest(${p(
       updates.map((u) => u.id),
       'uuid',
     )}, ${p(
       updates.map((u) => u.expectedRevision),
       'int',
     )},
                 ${p(
                   updates.map((u) => u.state.status),
                   'text',
                 )},
                 ${p(
                   updates.map((u) => JSON.stringify(rootVariables(u.state))),
                   'jsonb',
                 )},
                 ${p(
                   updates.map((u) => JSON.stringify(u.state)),
                   'jsonb',
                 )}, ${p(
                   updates.map((u) => u.now),
                   'timestamptz',
                 )})
       AS u(id, revision, state, variables, engine_state, now)
     WHERE i.id = u.id AND i.revision = u.revision
     RETURNING ${columns
       .split(', ')
       .map((column) => `i.${column}`)
       .join(', ')}`,
  );
  return (instanceIdSql) => `${instanceIdSql} IN (SELECT id FROM instance_update)`;
}

/** Runs a statement whose first CTE is {@link addGuardedUpdates}'; the updated instances by id. */
export async function runGuardedUpdates(
  db: Pool | PoolClient,
  statement: WriteStatement,
): Promise<Map<string, InstanceRecord>> {
  const rows = await statement.run<InstanceRow>(db, 'select_updates', 'SELECT * FROM instance_update');
  return new Map(rows.map((row) => [row.id, toInstanceRecord(row)]));
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
