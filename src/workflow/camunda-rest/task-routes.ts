import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { CamundaErrors } from './camunda-errors.js';
import { pagingParameters, QueryParameters } from './query-parameters.js';
import type { CamundaTaskApi, CamundaUserTaskQuery } from './task-api.js';
import { CompleteTaskBody, TaskIdParams, UserIdBody } from './task-schemas.js';

/**
 * Camunda 7's `/task` resource (user tasks). Reading needs any role in the task's org; claiming a
 * Worker or Operator role, unclaiming and completing the assignee or an Operator, as on weft's own
 * API (docs/workflow/camunda7.md, Tasks).
 */
export function registerTaskRoutes(scope: HttpServer, api: CamundaTaskApi): void {
  scope.get('/task', async (request) => api.list(userTaskQueryOf(request.query, true), identityOf(request)));

  scope.get('/task/count', async (request) => ({
    count: await api.count(userTaskQueryOf(request.query, false), identityOf(request)),
  }));

  scope.get('/task/:id', { schema: { params: TaskIdParams } }, async (request) =>
    api.get(request.params.id, identityOf(request)),
  );

  scope.post(
    '/task/:id/claim',
    { schema: { params: TaskIdParams, body: UserIdBody } },
    async (request, reply) => {
      await api.claim(request.params.id, request.body.userId, identityOf(request));
      return reply.status(204).send();
    },
  );

  scope.post('/task/:id/unclaim', { schema: { params: TaskIdParams } }, async (request, reply) => {
    await api.unclaim(request.params.id, identityOf(request));
    return reply.status(204).send();
  });

  scope.post(
    '/task/:id/assignee',
    { schema: { params: TaskIdParams, body: UserIdBody } },
    async (request, reply) => {
      await api.setAssignee(request.params.id, request.body.userId, identityOf(request));
      return reply.status(204).send();
    },
  );

  scope.post(
    '/task/:id/complete',
    { schema: { params: TaskIdParams, body: CompleteTaskBody } },
    async (request, reply) => {
      const body = request.body ?? {};
      const variables = await api.complete(
        request.params.id,
        { variables: body.variables, withVariablesInReturn: body.withVariablesInReturn === true },
        identityOf(request),
      );
      return variables === undefined ? reply.status(204).send() : reply.status(200).send(variables);
    },
  );

  scope.get('/task/:id/variables', { schema: { params: TaskIdParams } }, async (request) => {
    const parameters = new QueryParameters(request.query, ['deserializeValues']);
    parameters.set('deserializeValues');
    return api.variables(request.params.id, undefined, identityOf(request));
  });

  scope.get('/task/:id/form-variables', { schema: { params: TaskIdParams } }, async (request) => {
    const parameters = new QueryParameters(request.query, ['variableNames', 'deserializeValues']);
    parameters.set('deserializeValues');
    return api.variables(request.params.id, parameters.list('variableNames'), identityOf(request));
  });

  scope.get('/task/:id/form', { schema: { params: TaskIdParams } }, async (request) =>
    api.form(request.params.id, identityOf(request)),
  );

  scope.get('/task/:id/deployed-form', { schema: { params: TaskIdParams } }, async (request) =>
    api.deployedForm(request.params.id, identityOf(request)),
  );
}

const filterParameters = [
  'taskId',
  'taskIdIn',
  'processInstanceId',
  'processInstanceIdIn',
  'processInstanceBusinessKey',
  'processDefinitionKey',
  'processDefinitionId',
  'taskDefinitionKey',
  'assignee',
  'assigneeLike',
  'assigned',
  'unassigned',
  'candidateUser',
  'candidateGroup',
  'candidateGroups',
  'withCandidateGroups',
  'withoutCandidateGroups',
  'includeAssignedTasks',
  'involvedUser',
  'name',
  'nameLike',
  'tenantIdIn',
  'dueBefore',
  'dueAfter',
  'dueDate',
  'followUpBefore',
  'followUpAfter',
  'followUpDate',
  'createdBefore',
  'createdAfter',
  'createdOn',
];
const sortFields = [
  'created',
  'dueDate',
  'followUpDate',
  'priority',
  'name',
  'id',
  'assignee',
  'instanceId',
] as const;

/** Reads the query string of GET /task (with paging and sorting) or /count; 400 for what is not supported. */
export function userTaskQueryOf(raw: unknown, paged: boolean): CamundaUserTaskQuery {
  const allowed = paged
    ? [...filterParameters, ...pagingParameters, 'sortBy', 'sortOrder']
    : filterParameters;
  const parameters = new QueryParameters(raw, allowed);
  const text = (name: string) => parameters.text(name);
  const assigned = parameters.set('assigned');
  const unassigned = parameters.set('unassigned');
  if (assigned && unassigned) throw CamundaErrors.invalid('assigned and unassigned exclude each other');
  const withGroups = parameters.set('withCandidateGroups');
  const withoutGroups = parameters.set('withoutCandidateGroups');
  if (withGroups && withoutGroups)
    throw CamundaErrors.invalid('withCandidateGroups and withoutCandidateGroups exclude each other');
  const groups = parameters.values('candidateGroup', 'candidateGroups');
  const candidateUser = text('candidateUser');
  // Camunda's candidate queries leave out assigned tasks unless includeAssignedTasks says otherwise.
  const candidateQuery = groups !== undefined || candidateUser !== undefined;
  const includeAssigned = parameters.set('includeAssignedTasks');
  const dueDate = parameters.date('dueDate');
  const followUpDate = parameters.date('followUpDate');
  const createdOn = parameters.date('createdOn');
  const sorting = paged ? parameters.sorting(sortFields) : undefined;
  return {
    query: {
      ids: parameters.values('taskId', 'taskIdIn'),
      processInstanceIds: parameters.values('processInstanceId', 'processInstanceIdIn'),
      businessKey: text('processInstanceBusinessKey'),
      processKey: text('processDefinitionKey'),
      definitionId: text('processDefinitionId'),
      activityId: text('taskDefinitionKey'),
      assignee: text('assignee'),
      assigneeLike: text('assigneeLike'),
      assigned: assigned ? true : unassigned || (candidateQuery && !includeAssigned) ? false : undefined,
      candidateUser,
      involvedUser: text('involvedUser'),
      candidateGroups: groups,
      withCandidateGroups: withGroups ? true : withoutGroups ? false : undefined,
      name: text('name'),
      nameLike: text('nameLike'),
      // An exact date is the millisecond: after one less, before one more.
      dueBefore: dueDate === undefined ? parameters.date('dueBefore') : new Date(dueDate.getTime() + 1),
      dueAfter: dueDate === undefined ? parameters.date('dueAfter') : new Date(dueDate.getTime() - 1),
      followUpBefore:
        followUpDate === undefined ? parameters.date('followUpBefore') : new Date(followUpDate.getTime() + 1),
      followUpAfter:
        followUpDate === undefined ? parameters.date('followUpAfter') : new Date(followUpDate.getTime() - 1),
      createdBefore:
        createdOn === undefined ? parameters.date('createdBefore') : new Date(createdOn.getTime() + 1),
      createdAfter:
        createdOn === undefined ? parameters.date('createdAfter') : new Date(createdOn.getTime() - 1),
    },
    tenantIds: parameters.list('tenantIdIn'),
    page: paged ? parameters.page() : { firstResult: 0, maxResults: 0 },
    // Every weft task has the same priority: sorting by it is sorting by creation.
    order:
      sorting === undefined
        ? undefined
        : {
            by: sorting.by === 'priority' ? 'created' : sorting.by,
            descending: sorting.descending,
          },
  };
}
