import type { PoolClient } from '../../../platform/database/pool.js';
import { findLatestDeployed, stillLatestEnabled } from './process-definitions.js';
import { unnestParams, type StatementBuilder, type WriteStatement } from './write-statement.js';

/*
 * `process_keys`: one row per process key of an org, holding its last deployed version number and
 * its last instance counter. Its row lock orders deployments of a key and starts that count.
 */

/** Locks the key's row (creating it) and returns the latest deployed version's id and hash. */
export async function lockProcessKey(
  db: PoolClient,
  orgId: string,
  processKey: string,
): Promise<{ lastVersion: number; latest: { id: string; contentHash: string; draft: boolean } | null }> {
  await db.query(
    `INSERT INTO process_keys (org_id, process_key) VALUES ($1, $2) ON CONFLICT (org_id, process_key) DO NOTHING`,
    [orgId, processKey],
  );
  const { rows } = await db.query<{ last_version: number }>(
    'SELECT last_version FROM process_keys WHERE org_id = $1 AND process_key = $2 FOR UPDATE',
    [orgId, processKey],
  );
  return {
    lastVersion: rows[0]?.last_version ?? 0,
    latest: await findLatestDeployed(db, orgId, processKey),
  };
}

/** Advances the key's version counter to a newly deployed `version` (its row is locked). */
export async function setLastVersion(
  db: PoolClient,
  orgId: string,
  processKey: string,
  version: number,
): Promise<void> {
  await db.query('UPDATE process_keys SET last_version = $3 WHERE org_id = $1 AND process_key = $2', [
    orgId,
    processKey,
    version,
  ]);
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
  const definition = statement.param(input.definitionId);
  const stillLatest = input.latestEnabled ? `AND ${stillLatestEnabled(definition, org, key)}` : '';
  // A suspended version starts nothing (migration 0019); checked here so no counter is used up.
  const notSuspended = `AND NOT EXISTS (SELECT 1 FROM process_definitions sd WHERE sd.id = ${definition} AND sd.suspended)`;
  statement.with(
    'counter',
    `UPDATE process_keys SET last_counter = last_counter + 1
     WHERE org_id = ${org} AND process_key = ${key} ${stillLatest} ${notSuspended}
     RETURNING last_counter`,
  );
  return 'EXISTS (SELECT 1 FROM counter)';
}

/** The instances a batch starts per key, and each instance's rank among its key's. */
export function countersOf(instances: readonly { orgId: string; processKey: string }[]) {
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
 * starting instances of several keys each never deadlock (see addNewInstances).
 */
export async function lockInstanceCounters(
  client: PoolClient,
  instances: readonly { orgId: string; processKey: string }[],
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
 * Adds the CTE `counters` to `statement`: each key's counter advanced by its number of new
 * instances, returning the base each instance's rank adds to. With `latestEnabled`, a key's counter
 * moves only while that definition is still the latest enabled version of it.
 */
export function addKeyCounters(
  statement: StatementBuilder,
  counted: readonly { orgId: string; processKey: string; count: number }[],
  latestEnabled: string | undefined,
): void {
  const stillLatest =
    latestEnabled === undefined
      ? ''
      : `AND ${stillLatestEnabled(statement.param(latestEnabled), 'k.org_id', 'k.process_key')}`;
  const counters = unnestParams(statement, [
    [counted.map((k) => k.orgId), 'uuid'],
    [counted.map((k) => k.processKey), 'text'],
    [counted.map((k) => k.count), 'bigint'],
  ]);
  statement.with(
    'counters',
    `UPDATE process_keys k SET last_counter = k.last_counter + c.n
     FROM ${counters} AS c(org_id, process_key, n)
     WHERE k.org_id = c.org_id AND k.process_key = c.process_key ${stillLatest}
     RETURNING k.org_id, k.process_key, k.last_counter - c.n AS base`,
  );
}
