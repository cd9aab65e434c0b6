import type { FastifyRequest } from 'fastify';
import type { LongPollLimits } from '../../platform/config/index.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { Identity } from '../identity/auth/identity.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { LongPollSlots } from '../external-tasks/long-poll-slots.js';
import { workerScopeOf } from '../external-tasks/task-scope.js';
import { CamundaErrors } from './camunda-errors.js';
import type { CamundaExternalTaskApi, CamundaTaskQuery } from './external-task-api.js';
import {
  BpmnErrorBody,
  CompleteBody,
  ExtendLockBody,
  FailureBody,
  FetchAndLockBody,
  TaskIdParams,
} from './external-task-schemas.js';
import { memberScopeOf } from './member-scope.js';

/** What the external-task routes need besides the API. */
export interface ExternalTaskRouteOptions {
  /** Authenticates a long-polling caller again after each wait. */
  reauthenticate: (request: FastifyRequest) => Promise<Identity>;
  longPolls: LongPollLimits;
}

/**
 * Camunda 7's `/external-task` resource. Workers (reports, fetches) need the Worker or OrgAdmin role
 * in the tasks' orgs, as on weft's own API; the lists need any membership.
 */
export function registerExternalTaskRoutes(
  scope: HttpServer,
  api: CamundaExternalTaskApi,
  options: ExternalTaskRouteOptions,
): void {
  const workerScope = (request: FastifyRequest) => workerScopeOf(identityOf(request));
  const slots = new LongPollSlots(options.longPolls);
  const shutdown = new AbortController();
  scope.addHook('preClose', (done) => {
    shutdown.abort();
    done();
  });

  scope.post(
    '/external-task/fetchAndLock',
    { schema: { body: FetchAndLockBody } },
    async (request, reply) => {
      const identity = identityOf(request);
      const scopeOfCaller = workerScopeOf(identity);
      let release: (() => void) | undefined;
      if ((request.body.asyncResponseTimeout ?? 0) > 0) {
        const client =
          identity.via.kind === 'api-key' ? `api-key:${identity.via.keyId}` : `user:${identity.userId}`;
        release = slots.acquire(client);
        if (release === undefined)
          throw CamundaErrors.rest(
            429,
            'Too many long polls of this client (or of this service) are waiting; retry shortly',
            { 'retry-after': '1' },
          );
      }
      // The response's 'close' fires when the connection ends (the request's, once its body is read).
      const abort = new AbortController();
      reply.raw.once('close', () => abort.abort());
      try {
        return await api.fetchAndLock(request.body, {
          scope: scopeOfCaller,
          rescope: async () => workerScopeOf(await options.reauthenticate(request)),
          signal: AbortSignal.any([abort.signal, shutdown.signal]),
        });
      } finally {
        release?.();
      }
    },
  );

  scope.post(
    '/external-task/:id/complete',
    { schema: { params: TaskIdParams, body: CompleteBody } },
    async (request, reply) => {
      await api.complete(request.params.id, request.body, workerScope(request));
      return reply.status(204).send();
    },
  );

  scope.post(
    '/external-task/:id/failure',
    { schema: { params: TaskIdParams, body: FailureBody } },
    async (request, reply) => {
      await api.failure(request.params.id, request.body, workerScope(request));
      return reply.status(204).send();
    },
  );

  scope.post(
    '/external-task/:id/bpmnError',
    { schema: { params: TaskIdParams, body: BpmnErrorBody } },
    async (request, reply) => {
      await api.bpmnError(request.params.id, request.body, workerScope(request));
      return reply.status(204).send();
    },
  );

  scope.post(
    '/external-task/:id/extendLock',
    { schema: { params: TaskIdParams, body: ExtendLockBody } },
    async (request, reply) => {
      await api.extendLock(request.params.id, request.body, workerScope(request));
      return reply.status(204).send();
    },
  );

  scope.post('/external-task/:id/unlock', { schema: { params: TaskIdParams } }, async (request, reply) => {
    await api.unlock(request.params.id, workerScope(request));
    return reply.status(204).send();
  });

  scope.get('/external-task', async (request) =>
    api.list(taskQueryOf(request.query, true), memberScopeOf(identityOf(request))),
  );

  scope.get('/external-task/count', async (request) => ({
    count: await api.count(taskQueryOf(request.query, false), memberScopeOf(identityOf(request))),
  }));

  scope.get('/external-task/:id', { schema: { params: TaskIdParams } }, async (request) =>
    api.get(request.params.id, memberScopeOf(identityOf(request))),
  );
}

const filterParameters = [
  'externalTaskId',
  'externalTaskIdIn',
  'topicName',
  'workerId',
  'locked',
  'notLocked',
  'withRetriesLeft',
  'noRetriesLeft',
  'processInstanceId',
  'activityId',
  'tenantIdIn',
];
const pagingParameters = ['firstResult', 'maxResults'];
const defaultPageSize = 100;
const maxPageSize = 1000;

/** Reads the query string of GET /external-task (with paging) or /count; 400 for what is not supported. */
export function taskQueryOf(raw: unknown, paged: boolean): CamundaTaskQuery {
  const parameters = (raw ?? {}) as Record<string, unknown>;
  const allowed = paged ? [...filterParameters, ...pagingParameters] : filterParameters;
  for (const name of Object.keys(parameters)) {
    if (!allowed.includes(name))
      throw CamundaErrors.invalid(
        `The query parameter '${name}' is not supported by weft; supported: ${allowed.join(', ')}`,
      );
  }
  const text = (name: string): string | undefined => {
    const value = parameters[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > 1000)
      throw CamundaErrors.invalid(`The query parameter '${name}' must be given once, as text`);
    return value;
  };
  const flag = (name: string): boolean => {
    const value = text(name);
    if (value === undefined) return false;
    if (value !== 'true' && value !== 'false')
      throw CamundaErrors.invalid(`The query parameter '${name}' must be true or false`);
    return value === 'true';
  };
  const whole = (name: string, fallback: number, max: number): number => {
    const value = text(name);
    if (value === undefined) return fallback;
    if (!/^\d{1,9}$/.test(value))
      throw CamundaErrors.invalid(`The query parameter '${name}' must be a non-negative integer`);
    return Math.min(Number(value), max);
  };
  const list = (name: string) => text(name)?.split(',');
  const id = text('externalTaskId');
  const idIn = list('externalTaskIdIn');
  const ids = id === undefined && idIn === undefined ? undefined : [...(id ? [id] : []), ...(idIn ?? [])];
  const locked = flag('locked');
  const notLocked = flag('notLocked');
  const withRetries = flag('withRetriesLeft');
  const noRetries = flag('noRetriesLeft');
  if (locked && notLocked) throw CamundaErrors.invalid('locked and notLocked exclude each other');
  if (withRetries && noRetries)
    throw CamundaErrors.invalid('withRetriesLeft and noRetriesLeft exclude each other');
  return {
    query: {
      ids,
      topic: text('topicName'),
      workerId: text('workerId'),
      locked: locked ? true : notLocked ? false : undefined,
      processInstanceId: text('processInstanceId'),
      activityId: text('activityId'),
      retriesLeft: withRetries ? true : noRetries ? false : undefined,
    },
    tenantIds: list('tenantIdIn'),
    firstResult: whole('firstResult', 0, Number.MAX_SAFE_INTEGER),
    maxResults: whole('maxResults', defaultPageSize, maxPageSize),
  };
}
