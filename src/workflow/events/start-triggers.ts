import pg from 'pg';
import { withTransaction, type Pool, type PoolClient } from '../../platform/database/pool.js';
import type { ModelCache } from '../deployments/model-cache.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { ProcessModel } from '../engine/model/index.js';
import type { Variables } from '../engine/runtime/index.js';
import {
  claimMessageStartKey,
  messageStartKeyActive,
  type MessageStartKey,
} from '../engine/store/message-start-keys.js';
import { findStartableVersions, type StartableVersion } from '../engine/store/process-definitions.js';

/** Options of a start trigger. */
export interface StartOptions {
  /** Process keys already served (a message correlated to one of their instances). */
  skipKeys?: ReadonlySet<string>;
  /** Where to write: the pool, or the caller's transaction (a thrown event's delivery). */
  db?: Pool | PoolClient;
  /** The message's correlation key: one active message-started instance per key and process key. */
  correlationKey?: string | null;
}

/** Thrown inside a keyed start's transaction to undo it: the key has an active instance. */
class KeyTaken extends Error {}

/** Starts instances from message and signal start events of the latest enabled versions. */
export class StartTriggers {
  constructor(
    private readonly pool: Pool,
    private readonly models: ModelCache,
    private readonly driver: InstanceDriver,
  ) {}

  /**
   * Starts one instance of each process key whose latest enabled version has a start event for
   * this message or signal, except the keys in `skipKeys` and, for a message with a correlation key,
   * the keys that still have an active instance started by a message of that key (as in Zeebe).
   * Returns the new instances' ids.
   */
  async start(
    orgId: string,
    kind: 'message' | 'signal',
    name: string,
    variables: Variables,
    options: StartOptions = {},
  ): Promise<string[]> {
    const db = options.db ?? this.pool;
    const versions = await findStartableVersions(db, orgId, kind, name);
    const started: string[] = [];
    for (const version of versions) {
      if (options.skipKeys?.has(version.process_key)) continue;
      const startEventId = startEventFor(await this.models.get(version.id), kind, name);
      if (startEventId === undefined) continue;
      const input = { variables, businessKey: null, startEventId };
      const correlationKey = kind === 'message' ? (options.correlationKey ?? null) : null;
      if (correlationKey === null) {
        started.push((await this.driver.start(version, input, db)).instance.id);
        continue;
      }
      const key = { orgId, processKey: version.process_key, correlationKey };
      const id = await this.startKeyed(version, input, key, db);
      if (id !== null) started.push(id);
    }
    return started;
  }

  /**
   * The latest enabled versions that this message or signal would start, each with its start event,
   * without starting anything (the Camunda API counts them before it starts one).
   */
  async candidates(
    orgId: string,
    kind: 'message' | 'signal',
    name: string,
    db: Pool | PoolClient = this.pool,
  ): Promise<{ version: StartableVersion; startEventId: string }[]> {
    const found: { version: StartableVersion; startEventId: string }[] = [];
    for (const version of await findStartableVersions(db, orgId, kind, name)) {
      const startEventId = startEventFor(await this.models.get(version.id), kind, name);
      if (startEventId !== undefined) found.push({ version, startEventId });
    }
    return found;
  }

  // The start and its key row commit together; a start that finds the key taken is undone.
  private async startKeyed(
    version: StartableVersion,
    input: { variables: Variables; businessKey: null; startEventId: string },
    key: MessageStartKey,
    db: Pool | PoolClient,
  ): Promise<string | null> {
    if (await messageStartKeyActive(db, key)) return null;
    try {
      return await atomically(db, async (client) => {
        const { instance } = await this.driver.start(version, input, client);
        if (!(await claimMessageStartKey(client, key, instance.id))) throw new KeyTaken();
        return instance.id;
      });
    } catch (error) {
      if (error instanceof KeyTaken) return null;
      throw error;
    }
  }
}

/** Runs `work` in a transaction of the pool, or under a savepoint of the caller's transaction. */
async function atomically<T>(db: Pool | PoolClient, work: (client: PoolClient) => Promise<T>): Promise<T> {
  if (db instanceof pg.Pool) return withTransaction(db, work);
  await db.query('SAVEPOINT message_start');
  try {
    const result = await work(db);
    await db.query('RELEASE SAVEPOINT message_start');
    return result;
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT message_start');
    throw error;
  }
}

/** The top-level start event (or instantiating receive task) of a model that this message or signal triggers. */
function startEventFor(model: ProcessModel, kind: 'message' | 'signal', name: string): string | undefined {
  return model.startEventIds[kind].find((id) => {
    const element = model.elements[id];
    const definition =
      element?.type === 'startEvent' || element?.type === 'receiveTask' ? element.eventDefinition : null;
    if (definition?.kind === 'message') return definition.messageName === name;
    if (definition?.kind === 'signal') return definition.signalName === name;
    return false;
  });
}
