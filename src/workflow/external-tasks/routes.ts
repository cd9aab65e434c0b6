import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { ExternalTasksAuth, LongPollLimits } from '../../platform/config/index.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import { publicRoute } from '../../platform/http/route-config.js';
import type { Authenticator } from '../identity/auth/authenticator.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { bearerSecurity, ErrorBody } from '../common-schemas.js';
import type { Variables as JsonVariables } from '../engine/runtime/index.js';
import { WorkflowErrors } from '../errors.js';
import type { ExternalTaskService } from './external-task-service.js';
import { LongPollSlots } from './long-poll-slots.js';
import {
  BpmnErrorBody,
  CompleteBody,
  ExtendLockBody,
  FailureBody,
  FetchAndLockBody,
  LockedTask,
  TaskParams,
} from './schemas.js';
import { workerScopeOf, type TaskScope } from './task-scope.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
const noContent = { 204: Type.Null(), ...errors };

/** How the external-task routes authenticate. */
export interface ExternalTaskRouteOptions {
  /** `public` (the spec's default): no token, every org's tasks; `required`: a Worker's token. */
  auth: ExternalTasksAuth;
  /** Reads a long-polling caller's identity again after each wait (`required` only). */
  authenticator: Authenticator;
  /** How many long polls may wait at once, per client and in total. */
  longPolls: LongPollLimits;
}

/**
 * The external task API of the interface decisions. Public by default, as the spec says
 * (multi-tenant deployments then restrict these paths at the network level); with
 * `WORKFLOW_EXTERNAL_TASKS_AUTH=required` every route needs a token of a Worker, and sees only the
 * tasks of the orgs where the caller is one.
 */
export function registerExternalTaskRoutes(
  app: HttpServer,
  service: ExternalTaskService,
  options: ExternalTaskRouteOptions,
): void {
  const tags = ['external-tasks'];
  const required = options.auth === 'required';
  // Required: no `public` flag, so the authentication hook answers 401 without a valid token.
  const access = required ? { schema: { security: bearerSecurity } } : { ...publicRoute, schema: {} };
  const scopeOf = (request: FastifyRequest): TaskScope =>
    required ? workerScopeOf(identityOf(request)) : 'all';
  const rescopeOf = (request: FastifyRequest) =>
    required
      ? async (): Promise<TaskScope> => {
          const identity = await options.authenticator.authenticate(request.headers.authorization);
          if (identity === null) throw WorkflowErrors.unauthenticated();
          return workerScopeOf(identity);
        }
      : undefined;
  // A client is the caller's API key or user with `required`, else its address (docs/operations.md).
  const clientOf = (request: FastifyRequest): string => {
    if (!required) return `address:${request.ip}`;
    const identity = identityOf(request);
    return identity.via.kind === 'api-key' ? `api-key:${identity.via.keyId}` : `user:${identity.userId}`;
  };
  const slots = new LongPollSlots(options.longPolls);
  // Long polls answer at once (with what they have) when the server starts closing, so a shutdown
  // does not wait out every worker's poll timeout.
  const shutdown = new AbortController();
  app.addHook('preClose', (done) => {
    shutdown.abort();
    done();
  });

  app.post(
    '/api/v1/external-tasks/fetch-and-lock',
    {
      ...access,
      schema: {
        ...access.schema,
        tags,
        summary: 'Lock tasks of the given topics; long-polls with async_response_timeout_ms',
        body: FetchAndLockBody,
        response: {
          200: Type.Array(LockedTask),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      // Only a poll that may wait takes a slot; an immediate fetch holds nothing.
      let release: (() => void) | undefined;
      if ((request.body.async_response_timeout_ms ?? 0) > 0) {
        release = slots.acquire(clientOf(request));
        if (release === undefined) throw WorkflowErrors.tooManyLongPolls();
      }
      // A long poll ends early when the client goes away. (The request's own 'close' event fires as
      // soon as its body is read; the response's fires when the connection ends.)
      const abort = new AbortController();
      reply.raw.once('close', () => abort.abort());
      try {
        return await service.fetchAndLock(request.body, {
          scope: scopeOf(request),
          rescope: rescopeOf(request),
          signal: AbortSignal.any([abort.signal, shutdown.signal]),
        });
      } finally {
        release?.();
      }
    },
  );

  app.post(
    '/api/v1/external-tasks/:id/complete',
    {
      ...access,
      schema: {
        ...access.schema,
        tags,
        summary: 'Complete a task locked by this worker',
        params: TaskParams,
        body: CompleteBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await service.complete(
        request.params.id,
        request.body.worker_id,
        request.body.variables as JsonVariables | undefined,
        scopeOf(request),
      );
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/v1/external-tasks/:id/failure',
    {
      ...access,
      schema: {
        ...access.schema,
        tags,
        summary: 'Report a failed attempt; retries 0 raises an incident',
        params: TaskParams,
        body: FailureBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await service.fail(request.params.id, request.body, scopeOf(request));
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/v1/external-tasks/:id/bpmn-error',
    {
      ...access,
      schema: {
        ...access.schema,
        tags,
        summary: 'Throw a BPMN error: caught by a matching error boundary event, else an incident',
        params: TaskParams,
        body: BpmnErrorBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await service.bpmnError(
        request.params.id,
        {
          ...request.body,
          variables: request.body.variables as JsonVariables | undefined,
        },
        scopeOf(request),
      );
      return reply.status(204).send(null);
    },
  );

  app.patch(
    '/api/v1/external-tasks/:id/lock',
    {
      ...access,
      schema: {
        ...access.schema,
        tags,
        summary: "Extend this worker's lock",
        params: TaskParams,
        body: ExtendLockBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await service.extendLock(
        request.params.id,
        request.body.worker_id,
        request.body.new_duration_ms,
        scopeOf(request),
      );
      return reply.status(204).send(null);
    },
  );

  app.delete(
    '/api/v1/external-tasks/:id/lock',
    {
      ...access,
      schema: { ...access.schema, tags, summary: 'Unlock a task', params: TaskParams, response: noContent },
    },
    async (request, reply) => {
      await service.unlock(request.params.id, scopeOf(request));
      return reply.status(204).send(null);
    },
  );
}
