import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { MigrationPlan } from '../engine/driver/instance-migration.js';
import type { BatchItem as EngineBatchItem } from '../engine/driver/instance-driver.js';
import type { EngineEvent } from '../engine/runtime/index.js';
import { openIncidentIds, openIncidentIdsOf } from '../engine/store/incidents.js';
import { readInstances } from '../engine/store/process-instances.js';
import type { PoolClient } from '../../platform/database/pool.js';
import type { MigrationService, PlanBody } from '../instance-migration/migration-service.js';
import { WorkflowErrors } from '../errors.js';
import { BatchOperations } from './batch-operations.js';

/**
 * The registry with the batch types weft has: `retryIncidents` (each open incident of the instance
 * resumed, as `POST …/{id}/retry`), `cancel` (as `POST …/{id}/cancel`) and `migrate` (the plan of
 * `POST /api/v1/migrations/execute`). Each item runs in the executor's transaction.
 */
export function builtInOperations(driver: InstanceDriver, migrations: MigrationService): BatchOperations {
  return new BatchOperations()
    .register('retryIncidents', {
      parse: () => Promise.resolve({}),
      run: async ({ client }, instanceId) => {
        const incidents = await openIncidentIds(client, instanceId);
        if (incidents.length === 0) throw new Error('The process instance has no open incident');
        for (const incidentId of incidents)
          await driver.apply(instanceId, { type: 'retryIncident', incidentId }, undefined, client);
      },
      runAll: async ({ client }, instanceIds) => {
        const open = await openIncidentIdsOf(client, instanceIds);
        if (instanceIds.some((id) => !open.has(id))) throw new Error('An instance has no open incident');
        // Round n retries the n-th incident of each instance: one set-wise write per round.
        for (let round = 0; ; round++) {
          const events = instanceIds.flatMap((id) => {
            const incidentId = open.get(id)?.[round];
            return incidentId === undefined
              ? []
              : [{ id, event: { type: 'retryIncident' as const, incidentId } }];
          });
          if (events.length === 0) return;
          await applyAllOrThrow(driver, client, events, round === 0);
        }
      },
    })
    .register('cancel', {
      parse: () => Promise.resolve({}),
      run: async ({ client }, instanceId) => {
        await driver.apply(instanceId, { type: 'cancel' }, undefined, client);
      },
      runAll: ({ client }, instanceIds) =>
        applyAllOrThrow(
          driver,
          client,
          instanceIds.map((id) => ({ id, event: { type: 'cancel' as const } })),
          true,
        ),
    })
    .register<MigrationPlan>('migrate', {
      parse: async (params, { orgId, identity }) => {
        const plan = params.plan as PlanBody | undefined;
        if (plan === undefined) throw WorkflowErrors.validation('A migrate batch needs a plan');
        const resolved = await migrations.resolve(identity, plan);
        if (resolved.orgId !== orgId)
          throw WorkflowErrors.validation('The plan is not of the organisation of the batch');
        return resolved.plan;
      },
      run: async ({ client }, instanceId, plan) => {
        await migrations.migrateInBatch(plan, instanceId, client);
      },
      runAll: ({ client }, instanceIds, plan) => migrations.migrateAllInBatch(plan, instanceIds, client),
    });
}

/**
 * One event to each of several instances with the driver's set-wise write, in the batch's
 * transaction; throws the first refusal (the chunk then runs item by item). `read` reads the
 * instances in one query first.
 */
async function applyAllOrThrow(
  driver: InstanceDriver,
  client: PoolClient,
  events: readonly { id: string; event: EngineEvent }[],
  read: boolean,
): Promise<void> {
  const stored = read
    ? new Map(
        (
          await readInstances(
            client,
            events.map((e) => e.id),
          )
        ).map((s) => [s.record.id, s]),
      )
    : null;
  const items: EngineBatchItem[] = events.map(({ id, event }) => ({
    instanceId: id,
    event,
    ...(stored === null ? {} : { stored: stored.get(id) ?? null }),
  }));
  for (const outcome of await driver.applyAll(items, client)) if (!outcome.ok) throw outcome.error;
}
