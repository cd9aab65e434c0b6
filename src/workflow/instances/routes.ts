import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { requireOrgRole } from '../identity/auth/authorization.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody, IdempotencyHeaders } from '../common-schemas.js';
import type { Variables } from '../engine/runtime/index.js';
import type { IdempotentRequests } from '../idempotency/idempotent-requests.js';
import { WorkflowErrors } from '../errors.js';
import { decodeCursor, encodeCursor } from './list-cursor.js';
import type { InstanceService } from './instance-service.js';
import {
  HistoryEntry,
  Instance,
  InstanceDetail,
  InstanceIdParams,
  ListInstancesQuery,
  SetVariablesBody,
  StartInstanceBody,
} from './schemas.js';

const notFound = { 404: ErrorBody, 409: ErrorBody };

/** Clamps the list limit to the spec's 1..500, defaulting to 100. */
export function clampLimit(limit: number | undefined): number {
  return Math.min(500, Math.max(1, limit ?? 100));
}

/**
 * Process instances: start (idempotent with an `Idempotency-Key`), list, detail, history, cancel,
 * retry, variables.
 */
export function registerInstanceRoutes(
  app: HttpServer,
  instances: InstanceService,
  idempotency: IdempotentRequests,
): void {
  const tags = ['process-instances'];
  const security = bearerSecurity;

  app.post(
    '/api/v1/process-instances',
    {
      schema: {
        tags,
        security,
        summary: 'Start an instance of the latest enabled version of a key, or of one version (Operator)',
        headers: IdempotencyHeaders,
        body: StartInstanceBody,
        response: { 201: Instance, ...authenticatedErrors, ...notFound, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      const { variables, ...rest } = request.body;
      const identity = identityOf(request);
      requireOrgRole(identity, rest.org_id, ['Operator']);
      const start = { ...rest, variables: variables as Variables | undefined };
      return idempotency.respond(request, reply, { orgId: rest.org_id, status: 201 }, (db) =>
        instances.start(identity, start, db),
      );
    },
  );

  app.get(
    '/api/v1/process-instances',
    {
      schema: {
        tags,
        security,
        summary:
          "Instances of an organisation, newest first; the total is in X-Total-Count, the next page's cursor in X-Next-Cursor",
        querystring: ListInstancesQuery,
        response: { 200: Type.Array(Instance), ...authenticatedErrors },
      },
    },
    async (request, reply) => {
      const query = request.query;
      if (query.cursor !== undefined && query.offset)
        throw WorkflowErrors.validation('cursor and offset exclude each other');
      const page = await instances.list(identityOf(request), {
        orgId: query.org_id,
        definitionId: query.definition_id,
        processKey: query.process_key,
        state: query.state,
        businessKey: query.business_key,
        suspended: query.suspended,
        hasIncident: query.has_incident,
        elementId: query.element_id,
        startedAfter: query.started_after,
        startedBefore: query.started_before,
        limit: clampLimit(query.limit),
        offset: query.offset ?? 0,
        after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
      });
      if (page.last) reply.header('x-next-cursor', encodeCursor(page.last));
      return reply.header('x-total-count', String(page.total)).send(page.items);
    },
  );

  app.get(
    '/api/v1/process-instances/:id',
    {
      schema: {
        tags,
        security,
        summary: 'The instance with its variables, active element ids and open incidents',
        params: InstanceIdParams,
        response: { 200: InstanceDetail, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) => instances.get(identityOf(request), request.params.id),
  );

  app.get(
    '/api/v1/process-instances/:id/history',
    {
      schema: {
        tags,
        security,
        summary: 'Ordered execution history',
        params: InstanceIdParams,
        response: { 200: Type.Array(HistoryEntry), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) => instances.history(identityOf(request), request.params.id),
  );

  app.post(
    '/api/v1/process-instances/:id/cancel',
    {
      schema: {
        tags,
        security,
        summary: 'Cancel a running instance (Operator)',
        params: InstanceIdParams,
        response: { 200: Instance, ...authenticatedErrors, ...notFound },
      },
    },
    (request) => instances.cancel(identityOf(request), request.params.id),
  );

  app.post(
    '/api/v1/process-instances/:id/retry',
    {
      schema: {
        tags,
        security,
        summary: 'Resume every open incident: failed jobs get their retries back (Operator)',
        params: InstanceIdParams,
        response: { 200: Instance, ...authenticatedErrors, ...notFound },
      },
    },
    (request) => instances.retry(identityOf(request), request.params.id),
  );

  app.patch(
    '/api/v1/process-instances/:id/variables',
    {
      schema: {
        tags,
        security,
        summary: "Set variables on the instance's root scope (Operator); recorded in the history",
        params: InstanceIdParams,
        body: SetVariablesBody,
        response: { 200: Instance, ...authenticatedErrors, ...notFound },
      },
    },
    (request) =>
      instances.setVariables(identityOf(request), request.params.id, request.body.variables as Variables),
  );
}
