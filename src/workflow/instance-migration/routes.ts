import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../common-schemas.js';
import type { BatchService } from '../batches/batch-service.js';
import { Batch, ExecuteMigrationBody } from '../batches/schemas.js';
import { Instance } from '../instances/schemas.js';
import type { MigrationService } from './migration-service.js';
import { Plan, PlanBody, Validation, ValidateBody } from './schemas.js';

const errors = { ...authenticatedErrors, 404: ErrorBody, 409: ErrorBody };

/** Migration of running instances to another version: generate, validate, execute (Operator). */
export function registerMigrationRoutes(
  app: HttpServer,
  migrations: MigrationService,
  batches: BatchService,
): void {
  const tags = ['migrations'];
  const security = bearerSecurity;

  app.post(
    '/api/v1/migrations/plan',
    {
      schema: {
        tags,
        security,
        summary: 'A plan mapping each element of the source version to the same-id element of the target',
        body: PlanBody,
        response: { 200: Plan, ...errors },
      },
    },
    (request) => migrations.generate(identityOf(request), request.body),
  );

  app.post(
    '/api/v1/migrations/validate',
    {
      schema: {
        tags,
        security,
        summary: 'Every problem of a plan, and of the given instances under it',
        body: ValidateBody,
        response: { 200: Validation, ...errors },
      },
    },
    (request) => migrations.validate(identityOf(request), request.body.plan, request.body.instance_ids),
  );

  app.post(
    '/api/v1/migrations/execute',
    {
      schema: {
        tags,
        security,
        summary:
          'Migrate one instance at once (200 with the instance), or a selection as a migrate batch (202 with the batch)',
        body: ExecuteMigrationBody,
        response: {
          200: Type.Object({ instance: Instance }),
          202: Type.Object({ batch: Batch }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const identity = identityOf(request);
      const { plan, instance_ids, filter } = request.body;
      const only = instance_ids?.length === 1 && filter === undefined ? instance_ids[0] : undefined;
      if (only !== undefined) return { instance: await migrations.migrateOne(identity, plan, only) };
      const { orgId } = await migrations.resolve(identity, plan);
      const batch = await batches.create(identity, {
        orgId,
        type: 'migrate',
        instanceIds: instance_ids,
        filter:
          instance_ids === undefined
            ? {
                definitionId: filter?.definition_id ?? plan.source_definition_id,
                processKey: filter?.process_key,
                state: filter?.state,
                businessKey: filter?.business_key,
              }
            : undefined,
        params: { plan },
      });
      return reply.status(202).send({ batch });
    },
  );
}
