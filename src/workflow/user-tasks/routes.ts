import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody, Uuid } from '../common-schemas.js';
import type { Variables } from '../engine/runtime/index.js';
import type { UserTaskService } from './user-task-service.js';

const UserTask = Type.Object({
  id: Uuid,
  process_instance_id: Uuid,
  activity_id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  assignee: Type.Union([Type.String(), Type.Null()]),
  candidate_groups: Type.Array(Type.String()),
  variables: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String({ format: 'date-time' }),
});

/** GET /api/v1/tasks and POST /api/v1/tasks/{id}/complete. */
export function registerUserTaskRoutes(app: HttpServer, tasks: UserTaskService): void {
  const tags = ['user-tasks'];
  app.get(
    '/api/v1/tasks',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Open user tasks of an organisation',
        querystring: Type.Object({
          org_id: Uuid,
          assignee: Type.Optional(Type.String({ maxLength: 320 })),
          process_instance_id: Type.Optional(Uuid),
        }),
        response: { 200: Type.Array(UserTask), ...authenticatedErrors },
      },
    },
    (request) =>
      tasks.list(identityOf(request), {
        orgId: request.query.org_id,
        assignee: request.query.assignee,
        processInstanceId: request.query.process_instance_id,
      }),
  );

  app.post(
    '/api/v1/tasks/:id/complete',
    {
      schema: {
        tags,
        security: bearerSecurity,
        summary: 'Complete a user task (Operator, or the assignee)',
        params: Type.Object({ id: Uuid }),
        body: Type.Optional(
          Type.Object(
            { variables: Type.Optional(Type.Record(Type.String({ maxLength: 255 }), Type.Unknown())) },
            { additionalProperties: false },
          ),
        ),
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
