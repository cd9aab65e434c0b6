import type { Pool, PoolClient } from '../../platform/database/pool.js';

type Db = Pool | PoolClient;

/** An open message or signal wait of an instance (a row of `event_subscriptions`). */
export interface Subscription {
  waitId: string;
  instanceId: string;
  processKey: string;
}

interface SubscriptionRow {
  wait_id: string;
  process_instance_id: string;
  process_key: string;
}

const toSubscription = (row: SubscriptionRow): Subscription => ({
  waitId: row.wait_id,
  instanceId: row.process_instance_id,
  processKey: row.process_key,
});

/**
 * Open message waits a message may complete, oldest first: same org and name; a wait whose model
 * gives no correlation key takes any message, a keyed one only a message with its key. Waits of
 * `skipKeys` (process keys already served) and `skipWaits` (already tried) are left out.
 */
export async function findMessageSubscriptions(
  db: Db,
  input: {
    orgId: string;
    messageName: string;
    correlationKey: string | null;
    skipKeys: string[];
    skipWaits: string[];
    limit: number;
  },
): Promise<Subscription[]> {
  const keyed = input.correlationKey !== null;
  const { rows } = await db.query<SubscriptionRow>({
    name: keyed ? 'workflow.events.match_message_keyed' : 'workflow.events.match_message',
    text: `SELECT wait_id, process_instance_id, process_key FROM event_subscriptions
           WHERE org_id = $1 AND kind = 'message' AND name = $2
             AND ${keyed ? '(correlation_key = $6 OR correlation_key IS NULL)' : 'correlation_key IS NULL'}
             AND process_key <> ALL($3::text[]) AND wait_id <> ALL($4::uuid[])
           ORDER BY created_at, wait_id
           LIMIT $5`,
    values: [
      input.orgId,
      input.messageName,
      input.skipKeys,
      input.skipWaits,
      input.limit,
      ...(keyed ? [input.correlationKey] : []),
    ],
  });
  return rows.map(toSubscription);
}

/** Every open wait for a signal in the org, oldest first. */
export async function findSignalSubscriptions(
  db: Db,
  orgId: string,
  signalName: string,
): Promise<Subscription[]> {
  const { rows } = await db.query<SubscriptionRow>({
    name: 'workflow.events.match_signal',
    text: `SELECT wait_id, process_instance_id, process_key FROM event_subscriptions
           WHERE org_id = $1 AND kind = 'signal' AND name = $2
           ORDER BY created_at, wait_id`,
    values: [orgId, signalName],
  });
  return rows.map(toSubscription);
}

/** A version a message or signal starts: the latest enabled version of its key. */
export interface StartableVersion {
  id: string;
  org_id: string;
  process_key: string;
  version: number;
}

/**
 * The versions a message or signal of this name starts: for each process key that has a start event
 * for it, the latest enabled version, if that version still has one. Drafts and disabled versions
 * never start (spec).
 */
export async function findStartableVersions(
  db: Db,
  orgId: string,
  kind: 'message' | 'signal',
  name: string,
): Promise<StartableVersion[]> {
  const { rows } = await db.query<StartableVersion & { starts: boolean }>({
    name: `workflow.events.startable_${kind}`,
    text: `SELECT * FROM (
             SELECT DISTINCT ON (process_key) id, org_id, process_key, version,
                    weft_start_event_names(model, '${kind}') @> ARRAY[$2::text] AS starts
             FROM process_definitions
             WHERE org_id = $1 AND NOT draft AND NOT disabled
               AND process_key IN (SELECT process_key FROM process_definitions
                                   WHERE weft_start_event_names(model, '${kind}') @> ARRAY[$2::text] AND org_id = $1)
             ORDER BY process_key, version DESC
           ) AS latest
           WHERE starts
           ORDER BY process_key`,
    values: [orgId, name],
  });
  return rows.map(({ starts: _starts, ...version }) => version);
}
