import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertCamundaError, createRuntimeFixture, type RuntimeFixture } from './runtime-fixture.js';

interface Incident {
  id: string;
  processDefinitionId: string;
  processInstanceId: string;
  executionId: string;
  incidentTimestamp: string;
  incidentType: string;
  activityId: string;
  failedActivityId: string;
  causeIncidentId: string;
  rootCauseIncidentId: string;
  configuration: string;
  tenantId: string;
  incidentMessage: string;
  jobDefinitionId: null;
  annotation: null;
}

describe('/engine-rest/incident and retries', () => {
  let fixture: RuntimeFixture;
  before(async () => {
    fixture = await createRuntimeFixture();
  });
  after(() => fixture.close());

  const get = (path: string, token = fixture.operator.jwt) => fixture.engineRest('GET', path, token);
  const put = (path: string, body: unknown, token = fixture.operator.jwt) =>
    fixture.engineRest('PUT', path, token, body);
  const incidents = async (query: string, token?: string) => {
    const response = await get(`/incident?${query}`, token);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Incident[];
  };
  // An external task failed with no retries left: a failedExternalTask incident.
  const failedCharge = async () => {
    const instanceId = await fixture.start({ amount: 5 });
    const worker = fixture.users.worker.jwt;
    const locked = await fixture.engineRest('POST', '/external-task/fetchAndLock', worker, {
      workerId: 'w',
      maxTasks: 1,
      topics: [{ topicName: 'charge', lockDuration: 60_000, processVariables: { amount: 5 } }],
    });
    const [task] = locked.json() as { id: string; processInstanceId: string }[];
    assert.equal(task?.processInstanceId, instanceId);
    const failed = await fixture.engineRest('POST', `/external-task/${task.id}/failure`, worker, {
      workerId: 'w',
      errorMessage: 'card declined',
      retries: 0,
    });
    assert.equal(failed.statusCode, 204, failed.body);
    return { instanceId, taskId: task.id };
  };

  test('a failed external task shows as a failedExternalTask incident whose configuration is the task id', async () => {
    const { instanceId, taskId } = await failedCharge();
    const [incident, ...rest] = await incidents(`processInstanceId=${instanceId}`);
    assert.equal(rest.length, 0);
    assert.ok(incident);
    assert.equal(incident.incidentType, 'failedExternalTask');
    assert.equal(incident.configuration, taskId);
    assert.equal(incident.executionId, taskId);
    assert.equal(incident.activityId, 'charge');
    assert.equal(incident.failedActivityId, 'charge');
    assert.equal(incident.causeIncidentId, incident.id);
    assert.equal(incident.rootCauseIncidentId, incident.id);
    assert.equal(incident.incidentMessage, 'card declined');
    assert.equal(incident.tenantId, 'acme');
    assert.equal(incident.jobDefinitionId, null);
    assert.equal(incident.annotation, null);
    assert.match(incident.incidentTimestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
    assert.match(incident.processDefinitionId, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      (await incidents(`configuration=${taskId}`)).map((i) => i.id),
      [incident.id],
    );
    assert.deepEqual(
      (await incidents(`incidentId=${incident.id}`)).map((i) => i.id),
      [incident.id],
    );
    assert.ok((await incidents('incidentType=failedExternalTask')).some((i) => i.id === incident.id));
    assert.ok(!(await incidents('incidentType=failedJob')).some((i) => i.id === incident.id));
    assert.ok((await incidents('incidentMessageLike=card%25')).some((i) => i.id === incident.id));
    assert.ok(
      (await incidents('processDefinitionKeyIn=charge-card,route')).some((i) => i.id === incident.id),
    );
    assert.ok(
      (await incidents(`processDefinitionId=${incident.processDefinitionId}`)).some(
        (i) => i.id === incident.id,
      ),
    );
    assert.ok((await incidents('activityId=charge&tenantIdIn=acme')).some((i) => i.id === incident.id));
    assert.deepEqual(await incidents('activityId=nope'), []);
    assert.deepEqual(await incidents('activityId=charge&failedActivityId=other'), []);
    assert.deepEqual(
      (await incidents(`executionId=${taskId}&failedActivityId=charge`)).map((i) => i.id),
      [incident.id],
    );
    const count = await get(`/incident/count?processInstanceId=${instanceId}`);
    assert.deepEqual(count.json(), { count: 1 });
  });

  test('PUT /external-task/{id}/retries resolves the incident: the task can be fetched again and the instance ends', async () => {
    const { instanceId, taskId } = await failedCharge();
    assertCamundaError(
      await put(`/external-task/${taskId}/retries`, { retries: 0 }),
      400,
      'InvalidRequestException',
      /at least 1/,
    );
    // A Reader sees the incident but may not retry it; a Worker does not see it.
    assertCamundaError(
      await put(`/external-task/${taskId}/retries`, { retries: 1 }, fixture.users.reader.jwt),
      403,
      'AuthorizationException',
    );
    assertCamundaError(
      await put(`/external-task/${taskId}/retries`, { retries: 1 }, fixture.users.worker.jwt),
      404,
      'InvalidRequestException',
    );
    // The incident is a failed external task, not a job.
    assertCamundaError(await put(`/job/${taskId}/retries`, { retries: 1 }), 404, 'InvalidRequestException');
    const retried = await put(`/external-task/${taskId}/retries`, { retries: 2 });
    assert.equal(retried.statusCode, 204, retried.body);
    assert.deepEqual(await incidents(`processInstanceId=${instanceId}`), []);
    const worker = fixture.users.worker.jwt;
    const locked = await fixture.engineRest('POST', '/external-task/fetchAndLock', worker, {
      workerId: 'w',
      maxTasks: 1,
      topics: [{ topicName: 'charge', lockDuration: 60_000, processVariables: { amount: 5 } }],
    });
    const [task] = locked.json() as { id: string; processInstanceId: string }[];
    assert.equal(task?.processInstanceId, instanceId);
    await fixture.engineRest('POST', `/external-task/${task.id}/complete`, worker, { workerId: 'w' });
    assert.equal((await fixture.instance(instanceId)).state, 'completed');
    // The incident is gone: setting retries again finds nothing.
    assertCamundaError(
      await put(`/external-task/${taskId}/retries`, { retries: 1 }),
      404,
      'InvalidRequestException',
    );
  });

  test('other incidents are failedJob; PUT /job/{id}/retries resumes them', async () => {
    const instanceId = await fixture.startProcess('route', { go: false });
    const [incident] = await incidents(`processInstanceId=${instanceId}`);
    assert.ok(incident);
    assert.equal(incident.incidentType, 'failedJob');
    assert.equal(incident.configuration, incident.id);
    assert.equal(incident.activityId, 'choose');
    await fixture.native('PATCH', `/api/v1/process-instances/${instanceId}/variables`, {
      variables: { go: true },
    });
    const retried = await put(`/job/${incident.configuration}/retries`, { retries: 1 });
    assert.equal(retried.statusCode, 204, retried.body);
    assert.equal((await fixture.instance(instanceId)).state, 'completed');
    assert.deepEqual(await incidents(`processInstanceId=${instanceId}`), []);
  });

  test('an open external task without an incident keeps its retries', async () => {
    const instanceId = await fixture.start({ amount: 77 });
    const [open] = (
      await fixture.engineRest(
        'GET',
        `/external-task?processInstanceId=${instanceId}`,
        fixture.users.worker.jwt,
      )
    ).json() as { id: string }[];
    assertCamundaError(
      await put(`/external-task/${open?.id ?? ''}/retries`, { retries: 3 }),
      400,
      'InvalidRequestException',
      /has no incident/,
    );
  });

  test('incidents of other orgs are invisible; bad input is a 4xx', async () => {
    const beta = await fixture.startProcess('route', { go: false }, { org: 'beta' });
    assert.deepEqual(await incidents(`processInstanceId=${beta}`), []);
    const [seen] = await incidents(`processInstanceId=${beta}`, fixture.admin);
    assert.equal(seen?.tenantId, 'beta');
    assertCamundaError(
      await put(`/job/${seen?.id ?? ''}/retries`, { retries: 1 }),
      404,
      'InvalidRequestException',
    );
    assertCamundaError(await get('/incident?tenantIdIn=beta'), 400, 'InvalidRequestException');
    assertCamundaError(
      await get('/incident?incidentType=failedTask'),
      400,
      'InvalidRequestException',
      /incidentType/,
    );
    assertCamundaError(
      await get('/incident?jobDefinitionIdIn=x'),
      400,
      'InvalidRequestException',
      /jobDefinitionIdIn/,
    );
    assertCamundaError(await get('/incident?incidentTimestampBefore=never'), 400, 'InvalidRequestException');
    assertCamundaError(
      await put('/job/nope/retries', { retries: 1 }),
      404,
      'InvalidRequestException',
      /Job with id nope/,
    );
    assertCamundaError(await put('/job/nope/retries', {}), 400, 'InvalidRequestException');
    assertCamundaError(await put('/job/nope/retries', { retries: -1 }), 400, 'InvalidRequestException');
    assert.deepEqual(await incidents('processInstanceId=not-an-id'), []);
    // A Worker reads no incidents (weft's incident list is for Developer, Operator, Reader).
    assert.deepEqual(await incidents('', fixture.users.worker.jwt), []);
    const sorted = await incidents('sortBy=incidentTimestamp&sortOrder=desc', fixture.admin);
    assert.deepEqual(
      sorted.map((i) => i.incidentTimestamp),
      [...sorted.map((i) => i.incidentTimestamp)].sort().reverse(),
    );
  });
});
