import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { MigrationPlan } from '../engine/driver/instance-migration.js';
import type { BatchItem as EngineBatchItem } from '../engine/driver/instance-driver.js';
import type { EngineEvent } from '../engine/runtime/index.js';
import { openIncidentIds, openIncidentIdsOf } from '../engine/store/incidents.js';
import {
  findInstance,
  isEnded,
  readInstances,
  setInstanceSuspended,
} from '../engine/store/process-instances.js';
import type { PoolClient } from '../../platform/database/pool.js';
import type { MigrationService, PlanBody } from '../instance-migration/migration-service.js';
import { WorkflowErrors } from '../errors.js';
import type { ModificationRequest } from '../instances/instance-operations.js';
import { toModification } from '../instances/modification-request.js';
import type { ModificationBody } from '../instances/schemas.js';
import type { Static } from 'typebox';
import { BatchOperations, type ItemContext } from './batch-operations.js';

/**
 * The registry with the batch types weft has: `retryIncidents` (each open incident of the instance
 * resumed, as `POST …/{id}/retry`), `cancel` (as `POST …/{id}/cancel`), `suspend` and `resume` (as
 * `POST …/{id}/suspend` / `resume`), `modify` (the body of `POST …/{id}/modification`, given as
 * `modification`) and `migrate` (the plan of `POST /api/v1/migrations/execute`). Each item runs in
 * the executor's transaction; the batch's creator is the actor its history entries name.
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
    .register<{ actor: string }>('suspend', {
      parse: (_params, { identity }) => Promise.resolve({ actor: identity.userId }),
      run: (context, instanceId, { actor }) => setSuspended(context, instanceId, true, actor),
    })
    .register<{ actor: string }>('resume', {
      parse: (_params, { identity }) => Promise.resolve({ actor: identity.userId }),
      run: (context, instanceId, { actor }) => setSuspended(context, instanceId, false, actor),
    })
    .register<{ actor: string; modification: ModificationRequest }>('modify', {
      parse: (params, { identity }) => {
        const body = params.modification as Static<typeof ModificationBody> | undefined;
        if (body === undefined) throw WorkflowErrors.validation('A modify batch needs a modification');
        return Promise.resolve({ actor: identity.userId, modification: toModification(body) });
      },
      run: async ({ client }, instanceId, { actor, modification }) => {
        const { instructions, variables, skipIoMappings } = modification;
        const event: EngineEvent = {
          type: 'modify',
          instructions,
          actor,
          ...(variables === undefined ? {} : { variables }),
          ...(skipIoMappings === undefined ? {} : { skipIoMappings }),
        };
        await driver.apply(instanceId, event, undefined, client);
      },
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

// Suspends or resumes one item; already in that state is done (as the single-instance route), an
// ended or vanished instance fails the item.
async function setSuspended(
  { client, now }: ItemContext,
  instanceId: string,
  suspended: boolean,
  actor: string,
): Promise<void> {
  if (await setInstanceSuspended(client, { id: instanceId, suspended, actor, now })) return;
  const current = await findInstance(client, instanceId);
  if (!current) throw new Error('No such process instance');
  if (isEnded(current.state)) throw new Error(`The process instance is ${current.state}`);
}
