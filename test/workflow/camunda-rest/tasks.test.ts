import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertCamundaError, createRuntimeFixture, type RuntimeFixture } from './runtime-fixture.js';

interface Task {
  id: string;
  name: string | null;
  assignee: string | null;
  owner: null;
  created: string;
  due: string | null;
  followUp: string | null;
  executionId: string;
  priority: number;
  processDefinitionId: string;
  processInstanceId: string;
  taskDefinitionKey: string;
  suspended: boolean;
  formKey: string | null;
  tenantId: string | null;
  caseExecutionId: null;
}

const camundaDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;

describe('/engine-rest/task', () => {
  let fixture: RuntimeFixture;
  before(async () => {
    fixture = await createRuntimeFixture();
  });
  after(() => fixture.close());

  const get = (path: string, token = fixture.users.worker.jwt) => fixture.engineRest('GET', path, token);
  const post = (path: string, body: unknown, token = fixture.users.worker.jwt) =>
    fixture.engineRest('POST', path, token, body);
  const tasks = async (query: string, token?: string): Promise<Task[]> => {
    const response = await get(`/task?${query}`, token);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Task[];
  };
  const count = async (query: string, token?: string): Promise<number> => {
    const response = await get(`/task/count?${query}`, token);
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { count: number }).count;
  };
  const reviewTask = async (businessKey: string, variables: Record<string, unknown> = {}) => {
    const instanceId = await fixture.startProcess(
      'review',
      { due: '2030-01-02T03:04:05.000Z', ...variables },
      { businessKey },
    );
    const [task] = await tasks(`processInstanceId=${instanceId}`);
    assert.ok(task, 'the review task is open');
    return { instanceId, task };
  };

  test('GET /task/{id} answers a TaskDto', async () => {
    const { instanceId, task } = await reviewTask('dto-1');
    const response = await get(`/task/${task.id}`);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/json');
    const dto = response.json() as Task;
    assert.equal(dto.id, task.id);
    assert.equal(dto.name, 'Approve order');
    assert.equal(dto.assignee, null);
    assert.equal(dto.owner, null);
    assert.match(dto.created, camundaDate);
    assert.equal(dto.due, '2030-01-02T03:04:05.000+0000');
    assert.equal(dto.followUp, null);
    assert.equal(dto.executionId, task.id);
    assert.equal(dto.priority, 50);
    assert.match(dto.processDefinitionId, /^[0-9a-f-]{36}$/);
    assert.equal(dto.processInstanceId, instanceId);
    assert.equal(dto.taskDefinitionKey, 'approve');
    assert.equal(dto.suspended, false);
    assert.equal(dto.formKey, 'embedded:app:forms/approve.html');
    assert.equal(dto.tenantId, 'acme');
    assert.equal(dto.caseExecutionId, null);
  });

  test('GET /task filters by instance, business key, definition, activity, name and candidates', async () => {
    const { instanceId, task } = await reviewTask('filters-1');
    const definitionId = task.processDefinitionId;
    const only = (list: Task[]) => list.filter((t) => t.processInstanceId === instanceId).map((t) => t.id);
    assert.deepEqual(only(await tasks('processInstanceBusinessKey=filters-1')), [task.id]);
    assert.deepEqual((await tasks('processInstanceBusinessKey=filters-1')).length, 1);
    assert.deepEqual(only(await tasks(`processInstanceIdIn=${instanceId},${instanceId}`)), [task.id]);
    assert.deepEqual(only(await tasks(`processDefinitionId=${definitionId}`)), [task.id]);
    assert.deepEqual(only(await tasks('processDefinitionKey=review')), [task.id]);
    assert.deepEqual(only(await tasks('processDefinitionKey=order')), []);
    assert.deepEqual(only(await tasks('taskDefinitionKey=approve')), [task.id]);
    assert.deepEqual(only(await tasks('taskDefinitionKey=ship')), []);
    assert.deepEqual(only(await tasks('name=Approve%20order')), [task.id]);
    assert.deepEqual(only(await tasks('nameLike=Approve%25')), [task.id]);
    assert.deepEqual(only(await tasks('nameLike=Ship%25')), []);
    assert.deepEqual(only(await tasks('candidateGroup=managers')), [task.id]);
    assert.deepEqual(only(await tasks('candidateGroups=nobody,clerks')), [task.id]);
    assert.deepEqual(only(await tasks('candidateGroup=nobody')), []);
    assert.deepEqual(only(await tasks('withCandidateGroups=true')), [task.id]);
    assert.deepEqual(only(await tasks('withoutCandidateGroups=true')), []);
    assert.deepEqual(only(await tasks('candidateUser=carol@example.com')), [task.id]);
    assert.deepEqual(only(await tasks('involvedUser=carol@example.com')), [task.id]);
    assert.deepEqual(only(await tasks('candidateUser=dave@example.com')), []);
    assert.deepEqual(only(await tasks('unassigned=true')), [task.id]);
    assert.deepEqual(only(await tasks('assigned=true')), []);
    assert.deepEqual(only(await tasks('dueBefore=2030-01-03T00:00:00.000+0000')), [task.id]);
    assert.deepEqual(only(await tasks('dueAfter=2030-01-03T00:00:00.000+0000')), []);
    assert.deepEqual(only(await tasks('dueDate=2030-01-02T05:04:05.000%2B0200')), [task.id]);
    assert.deepEqual(only(await tasks('createdAfter=2000-01-01T00:00:00.000+0000')), [task.id]);
    assert.deepEqual(only(await tasks('createdBefore=2000-01-01T00:00:00.000+0000')), []);
    assert.deepEqual(only(await tasks('tenantIdIn=acme')), [task.id]);
    assert.equal(await count(`processInstanceId=${instanceId}`), 1);
    assert.equal(await count('processInstanceBusinessKey=no-such-key'), 0);
  });

  test("GET /task lists only the tasks of the caller's orgs; another tenant is a 400", async () => {
    const beta = await fixture.startProcess('review', { due: null }, { org: 'beta', businessKey: 'beta-1' });
    assert.deepEqual(await tasks(`processInstanceId=${beta}`), []);
    const [seen] = await tasks(`processInstanceId=${beta}`, fixture.users.both.jwt);
    assert.equal(seen?.tenantId, 'beta');
    assert.equal(seen?.due, null);
    assertCamundaError(
      await get('/task?tenantIdIn=beta'),
      400,
      'InvalidRequestException',
      /Unknown tenant id 'beta'/,
    );
    // Invisible by id too.
    assertCamundaError(
      await get(`/task/${seen?.id ?? ''}`),
      404,
      'InvalidRequestException',
      /No matching task/,
    );
    assertCamundaError(
      await post(`/task/${seen?.id ?? ''}/claim`, { userId: fixture.users.worker.email }),
      404,
      'InvalidRequestException',
    );
  });

  test('GET /task sorts and pages', async () => {
    const first = await reviewTask('page-1');
    const second = await reviewTask('page-2');
    const third = await reviewTask('page-3');
    const ids = [first.task.id, second.task.id, third.task.id];
    const mine = (list: Task[]) => list.map((t) => t.id).filter((id) => ids.includes(id));
    assert.deepEqual(mine(await tasks('sortBy=created&sortOrder=asc&maxResults=1000')), ids);
    assert.deepEqual(mine(await tasks('sortBy=created&sortOrder=desc&maxResults=1000')), [...ids].reverse());
    const all = await tasks('sortBy=created&sortOrder=asc&maxResults=1000');
    const at = all.findIndex((t) => t.id === first.task.id);
    const page = await tasks(`sortBy=created&sortOrder=asc&firstResult=${at + 1}&maxResults=1`);
    assert.deepEqual(
      page.map((t) => t.id),
      [second.task.id],
    );
    const byId = await tasks('sortBy=id&sortOrder=asc&maxResults=1000');
    assert.deepEqual(
      byId.map((t) => t.id),
      byId.map((t) => t.id).sort(),
    );
    assert.ok((await tasks('sortBy=dueDate&sortOrder=desc')).length > 0);
    assert.ok((await tasks('sortBy=priority&sortOrder=asc')).length > 0);
    assert.ok((await tasks('sortBy=name&sortOrder=asc')).length > 0);
  });

  test('claim, unclaim and complete with typed variables', async () => {
    const { instanceId, task } = await reviewTask('claim-1');
    const worker = fixture.users.worker;
    const claimed = await post(`/task/${task.id}/claim`, { userId: worker.email });
    assert.equal(claimed.statusCode, 204, claimed.body);
    assert.equal((await get(`/task/${task.id}`)).json<Task>().assignee, worker.email);
    assert.deepEqual(
      (await tasks(`assignee=${worker.email.toUpperCase()}`)).map((t) => t.id).filter((id) => id === task.id),
      [task.id],
    );
    assert.ok((await tasks('assigneeLike=worker%25')).some((t) => t.id === task.id));
    assert.ok(!(await tasks('candidateGroup=managers')).some((t) => t.id === task.id));
    assert.ok(
      (await tasks('candidateGroup=managers&includeAssignedTasks=true')).some((t) => t.id === task.id),
    );
    // Claiming again is no change; someone else's claim is TaskAlreadyClaimedException.
    assert.equal((await post(`/task/${task.id}/claim`, { userId: worker.email })).statusCode, 204);
    assertCamundaError(
      await post(`/task/${task.id}/claim`, { userId: fixture.users.both.email }, fixture.users.both.jwt),
      400,
      'TaskAlreadyClaimedException',
      new RegExp(`Task '${task.id}' is already claimed by someone else`),
    );
    const unclaimed = await post(`/task/${task.id}/unclaim`, {});
    assert.equal(unclaimed.statusCode, 204, unclaimed.body);
    assert.equal((await get(`/task/${task.id}`)).json<Task>().assignee, null);
    assert.equal((await post(`/task/${task.id}/assignee`, { userId: worker.email })).statusCode, 204);
    const completed = await post(`/task/${task.id}/complete`, {
      variables: {
        approved: { value: true, type: 'Boolean' },
        amount: { value: '42', type: 'Integer' },
        when: { value: '2024-05-06T09:08:09.010+0200', type: 'Date' },
      },
      withVariablesInReturn: true,
    });
    assert.equal(completed.statusCode, 200, completed.body);
    const returned = completed.json<Record<string, { type: string; value: unknown }>>();
    assert.deepEqual(returned.approved, { type: 'Boolean', value: true, valueInfo: {} });
    assert.deepEqual(returned.amount, { type: 'Integer', value: 42, valueInfo: {} });
    assert.deepEqual(returned.when, { type: 'String', value: '2024-05-06T07:08:09.010Z', valueInfo: {} });
    const instance = await fixture.instance(instanceId);
    assert.equal(instance.state, 'completed');
    assert.equal(instance.variables.approved, true);
    assertCamundaError(await get(`/task/${task.id}`), 404, 'InvalidRequestException');
  });

  test('complete without a body answers 204', async () => {
    const { instanceId, task } = await reviewTask('complete-1');
    await post(`/task/${task.id}/claim`, { userId: fixture.users.worker.email });
    const response = await fixture.engineRest('POST', `/task/${task.id}/complete`, fixture.users.worker.jwt);
    assert.equal(response.statusCode, 204, response.body);
    assert.equal((await fixture.instance(instanceId)).state, 'completed');
  });

  test("weft's rules hold: a Reader may neither claim nor complete, nobody claims for another user", async () => {
    const { task } = await reviewTask('rules-1');
    const reader = fixture.users.reader;
    assert.ok((await tasks(`processInstanceId=${task.processInstanceId}`, reader.jwt)).length === 1);
    assertCamundaError(
      await post(`/task/${task.id}/claim`, { userId: reader.email }, reader.jwt),
      403,
      'AuthorizationException',
    );
    assertCamundaError(
      await post(`/task/${task.id}/complete`, {}, reader.jwt),
      403,
      'AuthorizationException',
    );
    assertCamundaError(
      await post(`/task/${task.id}/claim`, { userId: 'someone@example.com' }),
      403,
      'AuthorizationException',
      /only to the caller/,
    );
    // A Worker who does not hold the task may not complete it (weft: the assignee or an Operator).
    assertCamundaError(await post(`/task/${task.id}/complete`, {}), 403, 'AuthorizationException');
    // An Operator completes an unclaimed task.
    const done = await post(`/task/${task.id}/complete`, {}, fixture.operator.jwt);
    assert.equal(done.statusCode, 204, done.body);
  });

  test('form-variables, variables and form', async () => {
    const { task } = await reviewTask('form-1', { amount: 12.5, customer: { name: 'Ada' } });
    const all = await get(`/task/${task.id}/form-variables`);
    assert.equal(all.statusCode, 200, all.body);
    assert.deepEqual(all.json(), {
      due: { type: 'String', value: '2030-01-02T03:04:05.000Z', valueInfo: {} },
      amount: { type: 'Double', value: 12.5, valueInfo: {} },
      customer: { type: 'Json', value: '{"name":"Ada"}', valueInfo: {} },
    });
    const named = await get(
      `/task/${task.id}/form-variables?variableNames=amount,missing&deserializeValues=false`,
    );
    assert.deepEqual(Object.keys(named.json() as object), ['amount']);
    const variables = await get(`/task/${task.id}/variables?deserializeValues=true`);
    assert.deepEqual(Object.keys(variables.json() as object).sort(), ['amount', 'customer', 'due']);
    const form = await get(`/task/${task.id}/form`);
    assert.deepEqual(form.json(), {
      key: 'embedded:app:forms/approve.html',
      contextPath: null,
      camundaFormRef: null,
    });
  });

  test('bad input answers Camunda-shaped 4xx', async () => {
    const { task } = await reviewTask('bad-1');
    assertCamundaError(
      await get('/task?priority=5'),
      400,
      'InvalidRequestException',
      /'priority' is not supported/,
    );
    assertCamundaError(await get('/task?dueBefore=tomorrow'), 400, 'InvalidRequestException', /dueBefore/);
    assertCamundaError(await get('/task?sortBy=created'), 400, 'InvalidRequestException', /sortOrder/);
    assertCamundaError(
      await get('/task?sortBy=owner&sortOrder=asc'),
      400,
      'InvalidRequestException',
      /sortBy/,
    );
    assertCamundaError(await get('/task?assigned=yes'), 400, 'InvalidRequestException', /true or false/);
    assertCamundaError(await get('/task/count?firstResult=1'), 400, 'InvalidRequestException');
    assertCamundaError(await get('/task/not-a-task'), 404, 'InvalidRequestException', /not-a-task/);
    assertCamundaError(
      await get('/task/00000000-0000-0000-0000-000000000000'),
      404,
      'InvalidRequestException',
    );
    assert.deepEqual(await tasks('taskId=not-a-uuid'), []);
    assertCamundaError(await get('/task?name=%00'), 400, 'InvalidRequestException');
    assert.deepEqual(await tasks('processDefinitionId=nope'), []);
    await post(`/task/${task.id}/claim`, { userId: fixture.users.worker.email });
    assertCamundaError(
      await post(`/task/${task.id}/complete`, { variables: { file: { value: 'x', type: 'File' } } }),
      400,
      'InvalidRequestException',
      /'file'/,
    );
    assertCamundaError(await post(`/task/${task.id}/claim`, { userId: 5 }), 400, 'InvalidRequestException');
    assertCamundaError(await get('/task', 'not-a-token'), 401, 'AuthenticationException');
  });
});
