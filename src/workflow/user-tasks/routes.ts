import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../common-schemas.js';
import type { Variables } from '../engine/runtime/index.js';
import { WorkflowErrors } from '../errors.js';
import {
  CompleteUserTaskBody,
  ListUserTasksQuery,
  UserTask,
  UserTaskDetails,
  UserTaskIdParams,
} from './schemas.js';
import type { UserTaskService } from './user-task-service.js';

/** GET /api/v1/tasks, GET /api/v1/tasks/{id} and POST /api/v1/tasks/{id}/claim, unclaim, complete. */
export function registerUserTaskRoutes(app: HttpServer, tasks: UserTaskService): void {
  const tags = ['user-tasks'];
  app.get(
    '/api/v1/tasks',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Open user tasks of an organisation',
        querystring: ListUserTasksQuery,
        response: { 200: Type.Array(UserTask), ...authenticatedErrors },
      },
    },
    async (request) =>
      tasks.list(identityOf(request), {
        orgId: request.query.org_id,
        assignee: request.query.assignee,
        unassigned: request.query.unassigned,
        processInstanceId: request.query.process_instance_id,
        candidateGroups: candidateGroupsOf(request.query.candidate_group),
        candidateUser: request.query.candidate_user,
        limit: request.query.limit,
        offset: request.query.offset,
      }),
  );

  app.get(
    '/api/v1/tasks/:id',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'One open user task with its form',
        params: UserTaskIdParams,
        response: { 200: UserTaskDetails, ...authenticatedErrors, 404: ErrorBody },
      },
    },
    (request) => tasks.get(identityOf(request), request.params.id),
  );

  app.post(
    '/api/v1/tasks/:id/claim',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Assign an unassigned user task to the caller (Operator, Worker)',
        params: UserTaskIdParams,
        response: { 204: Type.Null(), ...authenticatedErrors, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      await tasks.claim(identityOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/v1/tasks/:id/unclaim',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Clear the assignee of a user task (Operator, or the assignee)',
        params: UserTaskIdParams,
        response: { 204: Type.Null(), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await tasks.unclaim(identityOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/v1/tasks/:id/complete',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Complete a user task (Operator, or the assignee)',
        params: UserTaskIdParams,
        body: CompleteUserTaskBody,
        response: { 204: Type.Null(), ...authenticatedErrors, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const variables = (request.body?.variables ?? {}) as Variables;
      await tasks.complete(identityOf(request), request.params.id, variables);
      return reply.status(204).send(null);
    },
  );
}

const MAX_CANDIDATE_GROUPS = 100;

// `candidate_group=a,b&candidate_group=c` is any of a, b and c. A parameter naming no group (",")
// is refused rather than read as no filter, which would list every task.
function candidateGroupsOf(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const names = values
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw WorkflowErrors.validation('candidate_group names no group');
  if (names.length > MAX_CANDIDATE_GROUPS)
    throw WorkflowErrors.validation(`candidate_group names more than ${MAX_CANDIDATE_GROUPS} groups`);
  return names;
}
