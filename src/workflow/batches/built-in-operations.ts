import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { MigrationPlan } from '../engine/driver/instance-migration.js';
import { openIncidentIds } from '../engine/store/incidents.js';
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
    })
    .register('cancel', {
      parse: () => Promise.resolve({}),
      run: async ({ client }, instanceId) => {
        await driver.apply(instanceId, { type: 'cancel' }, undefined, client);
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
    });
}
