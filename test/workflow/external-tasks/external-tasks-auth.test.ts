import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../src/platform/config/index.js';
import { ExternalTaskApiError, ExternalTaskWorker } from '../../../src/worker/index.js';
import { startTestWorkflow } from '../../helpers/workflow.js';
import { fixtureXml } from '../engine/api/engine-fixture.js';
import { waitFor } from '../../worker/wait-for.js';

interface LockedTask {
  id: string;
  org_id: string;
  process_instance_id: string;
  lock_expires_at: string;
}

/** A service with two orgs that both deployed payment.bpmn (topic `charge`), and helpers. */
async function twoOrgs(env: Record<string, string>) {
  const workflow = await startTestWorkflow({ env });
  await workflow.createUser('admin@example.com', 'admin password', { platformAdmin: true });
  const admin = await workflow.login('admin@example.com', 'admin password');
  const org = async (slug: string) => {
    const created = await workflow.request({
      method: 'POST',
      url: '/api/v1/orgs',
      token: admin,
      body: { name: slug, slug },
    });
    const orgId = (created.json() as { id: string }).id;
    const group = await workflow.request({
      method: 'POST',
      url: `/api/v1/orgs/${orgId}/process-groups`,
      token: admin,
      body: { name: 'Default' },
    });
    const deployed = await workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: admin,
      body: {
        org_id: orgId,
        process_group_id: (group.json() as { id: string }).id,
        xml: await fixtureXml('payment.bpmn'),
      },
    });
    assert.equal(deployed.statusCode, 201, deployed.body);
    return orgId;
  };
  const orgA = await org('acme');
  const orgB = await org('globex');
  /** Creates a user with `roles` in `orgId` and returns its id and a login JWT. */
  const member = async (email: string, orgId: string, roles: string[]) => {
    const userId = await workflow.createUser(email, 'member password');
    const granted = await workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/${orgId}/members/${userId}`,
      token: admin,
      body: { roles },
    });
    assert.equal(granted.statusCode, 200, granted.body);
    return { userId, token: await workflow.login(email, 'member password') };
  };
  const start = async (orgId: string) => {
    const response = await workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: admin,
      body: { org_id: orgId, process_key: 'payment', variables: { amount: 5 } },
    });
    assert.equal(response.statusCode, 201, response.body);
    return (response.json() as { id: string }).id;
  };
  const fetch = (token: string | undefined, workerId: string, extra: Record<string, unknown> = {}) =>
    workflow.request({
      method: 'POST',
      url: '/api/v1/external-tasks/fetch-and-lock',
      ...(token === undefined ? {} : { token }),
      body: {
        worker_id: workerId,
        max_tasks: 100,
        topics: [{ topic_name: 'charge', lock_duration_ms: 60_000 }],
        ...extra,
      },
    });
  const instance = async (id: string) => {
    const response = await workflow.request({
      method: 'GET',
      url: `/api/v1/process-instances/${id}`,
      token: admin,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { state: string; active_element_ids: string[] };
  };
  return { workflow, admin, orgA, orgB, member, start, fetch, instance };
}

type Setup = Awaited<ReturnType<typeof twoOrgs>>;

/** Every external-task endpoint, for a task id and a worker id, with a valid body. */
function everyEndpoint(taskId: string, workerId: string) {
  return [
    {
      method: 'POST',
      url: '/api/v1/external-tasks/fetch-and-lock',
      body: { worker_id: workerId, max_tasks: 1, topics: [{ topic_name: 'charge', lock_duration_ms: 1000 }] },
    },
    { method: 'POST', url: `/api/v1/external-tasks/${taskId}/complete`, body: { worker_id: workerId } },
    {
      method: 'POST',
      url: `/api/v1/external-tasks/${taskId}/failure`,
      body: { worker_id: workerId, error_message: 'no', retries: 0, retry_timeout_ms: 0 },
    },
    {
      method: 'POST',
      url: `/api/v1/external-tasks/${taskId}/bpmn-error`,
      body: { worker_id: workerId, error_code: 'DECLINED' },
    },
    {
      method: 'PATCH',
      url: `/api/v1/external-tasks/${taskId}/lock`,
      body: { worker_id: workerId, new_duration_ms: 1000 },
    },
    { method: 'DELETE', url: `/api/v1/external-tasks/${taskId}/lock` },
  ];
}

describe('WORKFLOW_EXTERNAL_TASKS_AUTH', () => {
  test('defaults to public; another value fails at boot naming the variable and the allowed values', () => {
    assert.equal(loadConfig({}).workflow.externalTasksAuth, 'public');
    assert.equal(
      loadConfig({ WORKFLOW_EXTERNAL_TASKS_AUTH: 'required' }).workflow.externalTasksAuth,
      'required',
    );
    assert.throws(
      () => loadConfig({ WORKFLOW_EXTERNAL_TASKS_AUTH: 'yes' }),
      /WORKFLOW_EXTERNAL_TASKS_AUTH: .*"public", "required" \(got "yes"\)/,
    );
  });
});

describe('external tasks, public (the default)', () => {
  let s: Setup;
  before(async () => (s = await twoOrgs({})));
  after(() => s.workflow.close());

  test('need no token and hand out the tasks of every org, as the spec says', async () => {
    const a = await s.start(s.orgA);
    const b = await s.start(s.orgB);
    const fetched = await s.fetch(undefined, 'anyone');
    assert.equal(fetched.statusCode, 200, fetched.body);
    const tasks = fetched.json() as LockedTask[];
    assert.deepEqual(new Set(tasks.map((task) => task.process_instance_id)), new Set([a, b]));
    for (const task of tasks) {
      const completed = await s.workflow.request({
        method: 'POST',
        url: `/api/v1/external-tasks/${task.id}/complete`,
        body: { worker_id: 'anyone' },
      });
      assert.equal(completed.statusCode, 204, completed.body);
    }
    assert.equal((await s.instance(a)).state, 'completed');
    assert.equal((await s.instance(b)).state, 'completed');
  });
});

describe('external tasks, WORKFLOW_EXTERNAL_TASKS_AUTH=required', () => {
  let s: Setup;
  let workerA: { userId: string; token: string };
  let workerB: { userId: string; token: string };
  let operatorA: { userId: string; token: string };
  before(async () => {
    s = await twoOrgs({ WORKFLOW_EXTERNAL_TASKS_AUTH: 'required' });
    workerA = await s.member('worker-a@example.com', s.orgA, ['Worker']);
    workerB = await s.member('worker-b@example.com', s.orgB, ['Worker']);
    operatorA = await s.member('operator-a@example.com', s.orgA, ['Operator', 'Developer', 'Reader']);
  });
  after(() => s.workflow.close());

  test('every endpoint answers 401 U401 without a token, or with a bad one', async () => {
    for (const endpoint of everyEndpoint(randomUUID(), 'w')) {
      for (const token of [undefined, 'not-a-token', 'ck_AAAAAAAAbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb']) {
        const response = await s.workflow.request({ ...endpoint, ...(token ? { token } : {}) });
        assert.equal(response.statusCode, 401, `${endpoint.method} ${endpoint.url}`);
        assert.deepEqual(response.json(), { code: 'U401', message: 'Unauthenticated' });
      }
    }
  });

  test('every endpoint answers 403 U403 to a member without the Worker role', async () => {
    const b = await s.start(s.orgA);
    const [task] = (await s.fetch(workerA.token, 'a')).json() as LockedTask[];
    assert.equal(task?.process_instance_id, b);
    for (const endpoint of everyEndpoint(task.id, 'a')) {
      const response = await s.workflow.request({ ...endpoint, token: operatorA.token });
      assert.equal(response.statusCode, 403, `${endpoint.method} ${endpoint.url}`);
      assert.equal((response.json() as { code: string }).code, 'U403');
    }
    await s.workflow.createUser('nobody@example.com', 'member password');
    const nobody = await s.workflow.login('nobody@example.com', 'member password');
    assert.equal((await s.fetch(nobody, 'n')).statusCode, 403);
    const done = await s.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/complete`,
      token: workerA.token,
      body: { worker_id: 'a' },
    });
    assert.equal(done.statusCode, 204, done.body);
  });

  test("a Worker of org A locks only org A's tasks, and cannot touch org B's: 404 as for no task", async () => {
    const a = await s.start(s.orgA);
    const b = await s.start(s.orgB);
    const fetchedA = (await s.fetch(workerA.token, 'worker-a')).json() as LockedTask[];
    assert.ok(fetchedA.some((task) => task.process_instance_id === a));
    assert.ok(fetchedA.every((task) => task.org_id === s.orgA));
    const fetchedB = (await s.fetch(workerB.token, 'worker-b')).json() as LockedTask[];
    const taskB = fetchedB.find((task) => task.process_instance_id === b);
    assert.ok(taskB && fetchedB.every((task) => task.org_id === s.orgB));

    // Even naming B's worker id, A's token cannot report on, extend or unlock B's task.
    const missing = randomUUID();
    for (const [index, endpoint] of everyEndpoint(taskB.id, 'worker-b').entries()) {
      if (index === 0) continue;
      const response = await s.workflow.request({ ...endpoint, token: workerA.token });
      assert.equal(response.statusCode, 404, `${endpoint.method} ${endpoint.url}`);
      const forMissing = await s.workflow.request({
        ...everyEndpoint(missing, 'worker-b')[index]!,
        token: workerA.token,
      });
      assert.equal(forMissing.statusCode, 404);
      assert.deepEqual(response.json(), forMissing.json(), 'the answer does not reveal that the task exists');
    }
    assert.deepEqual((await s.instance(b)).active_element_ids, ['charge']);
    const { rows } = await s.workflow.database.pool.query<{ worker_id: string; lock_expires_at: Date }>(
      'SELECT worker_id, lock_expires_at FROM external_tasks WHERE id = $1',
      [taskB.id],
    );
    assert.equal(rows[0]?.worker_id, 'worker-b', "B's lock is untouched");
    assert.equal(rows[0]?.lock_expires_at.toISOString(), taskB.lock_expires_at);

    const completed = await s.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${taskB.id}/complete`,
      token: workerB.token,
      body: { worker_id: 'worker-b' },
    });
    assert.equal(completed.statusCode, 204, completed.body);
    assert.equal((await s.instance(b)).state, 'completed');
  });

  test('a PlatformAdmin and an OrgAdmin pass: the admin sees every org, the OrgAdmin its own', async () => {
    const a = await s.start(s.orgA);
    const b = await s.start(s.orgB);
    const orgAdminB = await s.member('admin-b@example.com', s.orgB, ['OrgAdmin']);
    const fetchedB = (await s.fetch(orgAdminB.token, 'org-admin')).json() as LockedTask[];
    assert.ok(fetchedB.some((task) => task.process_instance_id === b));
    assert.ok(fetchedB.every((task) => task.org_id === s.orgB));
    const fetchedAll = (await s.fetch(s.admin, 'platform-admin')).json() as LockedTask[];
    assert.ok(fetchedAll.some((task) => task.process_instance_id === a));
  });

  test('a revoked role or key stops the next request, and a long poll in progress', async () => {
    const temp = await s.member('temp@example.com', s.orgA, ['Worker']);
    const created = await s.workflow.request({
      method: 'POST',
      url: '/api/v1/api-keys',
      token: temp.token,
      body: { name: 'worker' },
    });
    const key = created.json() as { id: string; plaintext_key: string };
    assert.equal((await s.fetch(key.plaintext_key, 'temp')).statusCode, 200);

    const polling = s.fetch(key.plaintext_key, 'temp', { async_response_timeout_ms: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const revoked = await s.workflow.request({
      method: 'DELETE',
      url: `/api/v1/api-keys/${key.id}`,
      token: temp.token,
    });
    assert.equal(revoked.statusCode, 204);
    const instance = await s.start(s.orgA);
    const answer = await polling;
    assert.equal(answer.statusCode, 401, answer.body);
    // The task it was waiting for is still there for a worker that may have it.
    const fetched = (await s.fetch(workerA.token, 'worker-a')).json() as LockedTask[];
    assert.ok(fetched.some((task) => task.process_instance_id === instance));

    const removed = await s.workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/${s.orgA}/members/${temp.userId}`,
      token: s.admin,
      body: { roles: ['Reader'] },
    });
    assert.equal(removed.statusCode, 200);
    assert.equal((await s.fetch(temp.token, 'temp')).statusCode, 403);
  });

  test("the weft/worker client with a Worker's API key completes its org's tasks over HTTP", async () => {
    const created = await s.workflow.request({
      method: 'POST',
      url: '/api/v1/api-keys',
      token: workerA.token,
      body: { name: 'worker' },
    });
    const key = (created.json() as { plaintext_key: string }).plaintext_key;
    const baseUrl = await s.workflow.service.app.listen({ host: '127.0.0.1', port: 0 });
    const a = await s.start(s.orgA);
    const b = await s.start(s.orgB);

    const handled: string[] = [];
    const worker = new ExternalTaskWorker({
      baseUrl,
      token: key,
      workerId: 'client-a',
      asyncResponseTimeoutMs: 1000,
      pollIntervalMs: 0,
    });
    worker.subscribe('charge', (task) => {
      handled.push(task.orgId);
      return Promise.resolve({ charged: true });
    });
    const anonymous = new ExternalTaskWorker({ baseUrl, workerId: 'anonymous', pollIntervalMs: 0 });
    const refused: unknown[] = [];
    anonymous.on('error', ({ error }) => refused.push(error));
    anonymous.subscribe('charge', () => Promise.resolve({}));
    worker.start();
    anonymous.start();
    try {
      await waitFor('the completion of the org A instance', () => handled.length > 0, 10_000);
      let detail = await s.instance(a);
      for (let i = 0; i < 100 && detail.state !== 'completed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        detail = await s.instance(a);
      }
      assert.equal(detail.state, 'completed');
      await waitFor('the anonymous worker to be refused', () => refused.length > 0, 10_000);
    } finally {
      await worker.stop();
      await anonymous.stop();
    }
    assert.ok(handled.every((orgId) => orgId === s.orgA));
    assert.deepEqual((await s.instance(b)).active_element_ids, ['charge']);
    const error = refused[0];
    assert.ok(error instanceof ExternalTaskApiError && error.status === 401 && error.code === 'U401');
  });
});
