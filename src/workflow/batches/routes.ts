import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../common-schemas.js';
import { clampLimit } from '../instances/routes.js';
import type { BatchService } from './batch-service.js';
import { Batch, BatchIdParams, CreateBatchBody, ListBatchesQuery } from './schemas.js';

/** Batches: create (Operator), read and list (any role of the org). */
export function registerBatchRoutes(app: HttpServer, batches: BatchService): void {
  const tags = ['batches'];
  const security = bearerSecurity;

  app.post(
    '/api/v1/batches',
    {
      schema: {
        tags,
        security,
        summary: 'Run an operation over a selection of instances, asynchronously (Operator)',
        body: CreateBatchBody,
        response: { 201: Batch, ...authenticatedErrors, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const { org_id, type, instance_ids, filter, ...params } = request.body;
      const batch = await batches.create(identityOf(request), {
        orgId: org_id,
        type,
        instanceIds: instance_ids,
        filter: filter && {
          definitionId: filter.definition_id,
          processKey: filter.process_key,
          state: filter.state,
          businessKey: filter.business_key,
        },
        params,
      });
      return reply.status(201).send(batch);
    },
  );

  app.get(
    '/api/v1/batches',
    {
      schema: {
        tags,
        security,
        summary: 'The batches of an organisation, newest first',
        querystring: ListBatchesQuery,
        response: { 200: Type.Array(Batch), ...authenticatedErrors },
      },
    },
    (request) =>
      batches.list(identityOf(request), {
        orgId: request.query.org_id,
        limit: clampLimit(request.query.limit),
        offset: request.query.offset ?? 0,
      }),
  );

  app.get(
    '/api/v1/batches/:id',
    {
      schema: {
        tags,
        security,
        summary: 'A batch: its state, counts and failures',
        params: BatchIdParams,
        response: { 200: Batch, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) => batches.get(identityOf(request), request.params.id),
  );
}
