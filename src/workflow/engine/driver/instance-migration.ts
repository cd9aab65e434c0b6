import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { ModelCache } from '../../deployments/model-cache.js';
import {
  migrateInstance,
  type MigrationInstruction,
  type MigrationProblem,
  type MovedWait,
} from '../runtime/index.js';
import { connectorJobMoves } from '../store/connector-jobs.js';
import { continuationJobMoves } from '../store/continuation-jobs.js';
import { subscriptionMoves } from '../store/event-subscriptions.js';
import { externalTaskMoves } from '../store/external-tasks.js';
import { incidentMoves } from '../store/incidents.js';
import {
  addMigratedUpdate,
  addMigratedUpdates,
  isEnded,
  readInstance,
  readInstances,
  runGuardedUpdate,
  runGuardedUpdates,
  type InstanceRecord,
  type StoredInstance,
} from '../store/process-instances.js';
import { moveRows, rowGuard, type MovedRows } from '../store/set-wise-write.js';
import type { EffectTarget, Tagged } from '../store/tagged-rows.js';
import { timerJobMoves } from '../store/timer-jobs.js';
import { userTaskMoves } from '../store/user-tasks.js';
import { WriteStatement } from '../store/write-statement.js';
import { EngineCallError, InstanceContentionError } from './driver-errors.js';
import { addEffects, EffectWrites, type WrittenEffects } from './effects-writer.js';

/** A migration plan: from one version of a process to another, element by element. */
export interface MigrationPlan {
  sourceDefinitionId: string;
  targetDefinitionId: string;
  instructions: MigrationInstruction[];
}

/** An instance that cannot migrate under a plan: every problem found. Nothing was written. */
export class MigrationRefusedError extends Error {
  override readonly name = 'MigrationRefusedError';

  constructor(
    message: string,
    readonly problems: MigrationProblem[],
  ) {
    super(message);
  }
}

/** What the migrator needs. */
export interface InstanceMigratorOptions {
  models: ModelCache;
  clock: Clock;
  maxStepsPerCall: number;
  maxMultiInstance: number;
  /** Attempts of a migration whose write lost a race with another write of the instance. */
  maxAttempts?: number;
  /**
   * Called after each committed-or-joined write with what it opened (the driver's
   * `announceWrite`): message waits the target opened are offered buffered messages.
   */
  announce?: (db: Pool | PoolClient, instance: InstanceRecord, written: WrittenEffects) => Promise<void>;
}

// The rows that hold each kind of kept wait; kinds without rows (decisions, call activities) have none.
const movedTables: Partial<Record<MovedWait['kind'], MovedRows>> = {
  externalTask: externalTaskMoves,
  userTask: userTaskMoves,
  timer: timerJobMoves,
  script: connectorJobMoves,
  continuation: continuationJobMoves,
  message: subscriptionMoves,
  signal: subscriptionMoves,
};

/**
 * Migrates stored instances: reads the instance, runs the pure {@link migrateInstance}, and writes
 * in one statement, guarded by the instance's revision and source definition, its new state and
 * definition, the waits closed and opened, the rows of kept waits and incidents pointed at their new
 * elements, and the `migrated` history entry. `db` is the caller's transaction or the pool.
 */
export class InstanceMigrator {
  constructor(private readonly options: InstanceMigratorOptions) {}

  /** The problems of `instanceId` under `plan` (empty: it can migrate). */
  async check(instanceId: string, plan: MigrationPlan, db: Pool | PoolClient): Promise<MigrationProblem[]> {
    try {
      await this.plan(instanceId, plan, db);
      return [];
    } catch (error) {
      if (error instanceof MigrationRefusedError) return error.problems;
      throw error;
    }
  }

  /** Migrates one instance; throws {@link MigrationRefusedError} or an {@link EngineCallError}. */
  async migrate(instanceId: string, plan: MigrationPlan, db: Pool | PoolClient): Promise<InstanceRecord> {
    const attempts = this.options.maxAttempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      const planned = await this.plan(instanceId, plan, db);
      const statement = new WriteStatement();
      const guard = addMigratedUpdate(statement, {
        id: instanceId,
        state: planned.state,
        expectedRevision: planned.revision,
        fromDefinitionId: plan.sourceDefinitionId,
        toDefinitionId: plan.targetDefinitionId,
      });
      const effects = addEffects(statement, planned.target, planned.effects, guard);
      addMoves(statement, [planned], () => guard);
      const written = await runGuardedUpdate(db, statement);
      if (written) {
        await this.options.announce?.(db, written, effects);
        return written;
      }
      if (attempt >= attempts) throw new InstanceContentionError();
    }
  }

  /**
   * Migrates several instances with one statement in the caller's transaction (a batch's chunk):
   * all of them, or throws (the first refusal, or a write that lost a race) and the caller's
   * transaction is to be rolled back.
   */
  async migrateAll(instanceIds: readonly string[], plan: MigrationPlan, client: PoolClient): Promise<void> {
    const stored = new Map((await readInstances(client, instanceIds)).map((s) => [s.record.id, s]));
    const planned = [];
    for (const id of instanceIds) planned.push(await this.plan(id, plan, client, stored.get(id) ?? null));
    const statement = new WriteStatement();
    const guard = addMigratedUpdates(
      statement,
      planned.map((p) => ({ id: p.target.instanceId, state: p.state, expectedRevision: p.revision })),
      { fromDefinitionId: plan.sourceDefinitionId, toDefinitionId: plan.targetDefinitionId },
    );
    const writes = new EffectWrites();
    const effects = planned.map((p) => ({
      id: p.target.instanceId,
      written: writes.add(p.target, p.effects),
    }));
    writes.write(statement, guard);
    addMoves(statement, planned, guard);
    const written = await runGuardedUpdates(client, statement);
    if (written.size !== instanceIds.length) throw new InstanceContentionError();
    for (const { id, written: opened } of effects) {
      const record = written.get(id);
      if (record !== undefined) await this.options.announce?.(client, record, opened);
    }
  }

  private async plan(
    instanceId: string,
    plan: MigrationPlan,
    db: Pool | PoolClient,
    read?: StoredInstance | null,
  ) {
    const stored = read === undefined ? await readInstance(db, instanceId) : read;
    if (!stored) throw new EngineCallError('notFound', 'No such process instance');
    const refuse = (message: string) => new MigrationRefusedError(message, [{ elementId: null, message }]);
    if (isEnded(stored.record.state)) throw refuse(`The process instance is ${stored.record.state}`);
    if (stored.record.definition_id !== plan.sourceDefinitionId)
      throw refuse('The process instance is not of the source version of the plan');
    const [source, target] = await Promise.all([
      this.options.models.get(plan.sourceDefinitionId),
      this.options.models.get(plan.targetDefinitionId),
    ]);
    const now = this.options.clock.now();
    const result = migrateInstance({
      source,
      target,
      state: stored.engineState,
      instructions: plan.instructions,
      ctx: {
        now,
        newId: randomUUID,
        maxStepsPerCall: this.options.maxStepsPerCall,
        maxMultiInstance: this.options.maxMultiInstance,
        instance: {
          id: instanceId,
          businessKey: stored.record.business_key,
          definitionId: plan.targetDefinitionId,
        },
      },
      data: { sourceDefinitionId: plan.sourceDefinitionId, targetDefinitionId: plan.targetDefinitionId },
    });
    if (!result.ok) throw new MigrationRefusedError('The process instance cannot migrate', result.problems);
    const target_: EffectTarget = {
      instanceId,
      orgId: stored.record.org_id,
      processKey: stored.record.process_key,
      now: now.toISOString(),
    };
    return { ...result, revision: stored.revision, target: target_ };
  }
}

/** Adds the updates pointing the rows of kept waits and incidents of `planned` at their new elements. */
function addMoves(
  statement: WriteStatement,
  planned: readonly {
    target: EffectTarget;
    movedWaits: MovedWait[];
    movedIncidents: { incidentId: string; elementId: string }[];
  }[],
  guard: (instanceIdSql: string) => string,
): void {
  const rows = rowGuard(guard);
  const byTable = new Map<MovedRows, Tagged<{ id: string; elementId: string }>[]>();
  const incidents: Tagged<{ id: string; elementId: string }>[] = [];
  for (const { target, movedWaits, movedIncidents } of planned) {
    for (const wait of movedWaits) {
      const table = movedTables[wait.kind];
      if (table === undefined) continue;
      byTable.set(table, [
        ...(byTable.get(table) ?? []),
        { ...target, item: { id: wait.waitId, elementId: wait.elementId } },
      ]);
    }
    for (const incident of movedIncidents)
      incidents.push({ ...target, item: { id: incident.incidentId, elementId: incident.elementId } });
  }
  for (const [table, moved] of byTable) moveRows(statement, rows, table, moved);
  moveRows(statement, rows, incidentMoves, incidents);
}
