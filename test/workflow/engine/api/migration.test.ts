import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { correlate } from './event-helpers.js';

interface Problem {
  element_id: string | null;
  message: string;
  instance_ids?: string[];
}

describe('migration of running instances (POST /api/v1/migrations/*)', () => {
  let f: EngineFixture;
  let v1: string;
  let v2: string;
  let v3: string;

  const post = (url: string, body: unknown, token = f.tokens.operator) =>
    f.workflow.request({ method: 'POST', url, token, body });
  const plan = (target = v2, instructions?: { source: string; target: string }[]) => ({
    source_definition_id: v1,
    target_definition_id: target,
    ...(instructions === undefined ? {} : { instructions }),
  });
  /** Starts an instance of version 1 (version 3 is the latest). */
  const startV1 = async (variables: Record<string, unknown> = {}) => {
    const response = await post('/api/v1/process-instances', {
      org_id: f.orgId,
      definition_id: v1,
      variables,
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { id: string; counter: number };
  };
  const history = async (id: string) => {
    const response = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/process-instances/${id}/history`,
      token: f.tokens.reader,
    });
    return response.json() as { kind: string; element_id: string; data: Record<string, unknown> }[];
  };
  const waitForBatch = async (id: string) => {
    for (let i = 0; i < 400; i++) {
      const response = await f.workflow.request({
        method: 'GET',
        url: `/api/v1/batches/${id}`,
        token: f.tokens.reader,
      });
      const batch = response.json() as { state: string; done: number; failed: number; failures: unknown[] };
      if (batch.state === 'completed') return batch;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the batch did not complete');
  };

  before(async () => {
    f = await createEngineFixture();
    const ids: string[] = [];
    for (const fixture of ['migrate-v1.bpmn', 'migrate-v2.bpmn', 'migrate-v3.bpmn']) {
      const deployed = await f.deploy(fixture);
      assert.equal(deployed.statusCode, 201, deployed.body);
      ids.push((deployed.json() as { id: string }).id);
    }
    [v1, v2, v3] = ids as [string, string, string];
  });
  after(() => f?.close());

  // First in the file: no instance of version 2 subscribes to "cancelCharge" yet, so it is buffered.
  test('a message wait the migration opens takes a buffered message, as a wait opened by a token does', async () => {
    const instance = await startV1();
    const answer = await correlate(f, { message_name: 'cancelCharge', time_to_live_ms: 60_000 });
    assert.ok(answer.buffered, 'no subscription yet: the message is buffered');
    const response = await post('/api/v1/migrations/execute', { plan: plan(), instance_ids: [instance.id] });
    assert.equal(response.statusCode, 200, response.body);
    const kinds = (await history(instance.id)).map((h) => `${h.kind}:${h.element_id}`);
    assert.ok(kinds.includes('elementActivated:chargeCancelled'), kinds.join(', '));
    assert.ok(kinds.includes('elementCompleted:cancelled'), kinds.join(', '));
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['charge']);
    const left = await f.workflow.database.pool.query(
      "SELECT 1 FROM buffered_messages WHERE message_name = 'cancelCharge'",
    );
    assert.equal(left.rowCount, 0, 'the buffered message was taken');
  });

  test('plan generates instructions mapping same-id compatible elements', async () => {
    const response = await post('/api/v1/migrations/plan', plan());
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { instructions: { source: string; target: string }[] };
    assert.deepEqual(
      body.instructions.map((i) => i.source),
      ['approve', 'charge', 'chargeTimeout', 'cool', 'done', 'start', 'timedOut'],
    );
  });

  test('validate lists every problem: instructions, unmapped wait states, and the instances given', async () => {
    const instance = await startV1();
    const response = await post('/api/v1/migrations/validate', {
      plan: plan(v3, [
        { source: 'charge', target: 'charge' },
        { source: 'start', target: 'start' },
      ]),
      instance_ids: [instance.id],
    });
    assert.equal(response.statusCode, 200, response.body);
    const invalid = response.json() as { valid: boolean; problems: Problem[] };
    assert.equal(invalid.valid, false);
    const listed = invalid.problems.map((p) => `${p.element_id}: ${p.message}`);
    assert.ok(
      listed.some((m) => /^charge: .*serviceTask cannot become a userTask/.test(m)),
      listed.join('\n'),
    );
    for (const id of ['approve', 'cool'])
      assert.ok(
        listed.some((m) => m.startsWith(`${id}: '${id}'`) && m.includes('is not mapped')),
        `${id} listed too: ${listed.join('; ')}`,
      );

    const valid = await post('/api/v1/migrations/validate', {
      plan: plan(v3, [{ source: 'start', target: 'start' }]),
      instance_ids: [instance.id],
    });
    assert.equal(valid.statusCode, 200, valid.body);
    const body = valid.json() as { valid: boolean; problems: Problem[] };
    assert.equal(body.valid, false);
    const elements = body.problems.map((p) => p.element_id);
    for (const id of ['approve', 'charge', 'cool'])
      assert.ok(elements.includes(id), `${id} listed: ${elements.join()}`);
    const ofInstance = body.problems.find((p) => p.instance_ids !== undefined);
    assert.deepEqual(ofInstance?.instance_ids, [instance.id]);
    assert.match(ofInstance?.message ?? '', /the active element 'charge' \(serviceTask\) is not mapped/);
    const ok = await post('/api/v1/migrations/validate', { plan: plan(), instance_ids: [instance.id] });
    assert.deepEqual(ok.json(), { valid: true, problems: [] });
  });

  test('execute migrates one instance: counter, variables and history kept, the worker’s task id still works, a changed timer is re-created', async () => {
    const instance = await startV1({ amount: 7 });
    const [task] = (await f.fetch('worker-1', 'charge', 100)).filter(
      (t) => t.process_instance_id === instance.id,
    );
    assert.ok(task);
    const timerBefore = await f.workflow.database.pool.query<{ id: string; due_at: Date; schedule: unknown }>(
      "SELECT id, due_at, schedule FROM timer_jobs WHERE process_instance_id = $1 AND element_id = 'chargeTimeout'",
      [instance.id],
    );
    assert.equal(timerBefore.rowCount, 1);

    const response = await post('/api/v1/migrations/execute', { plan: plan(), instance_ids: [instance.id] });
    assert.equal(response.statusCode, 200, response.body);
    const migrated = (
      response.json() as { instance: { definition_id: string; counter: number; variables: unknown } }
    ).instance;
    assert.equal(migrated.definition_id, v2);
    assert.equal(migrated.counter, instance.counter);
    assert.deepEqual(migrated.variables, { amount: 7 });

    const timers = await f.workflow.database.pool.query<{
      id: string;
      due_at: Date;
      schedule: { value: string };
    }>('SELECT id, due_at, schedule FROM timer_jobs WHERE process_instance_id = $1 ORDER BY element_id', [
      instance.id,
    ]);
    assert.equal(timers.rowCount, 1);
    assert.notEqual(timers.rows[0]?.id, timerBefore.rows[0]?.id, 'the changed timer is a new row');
    assert.equal(timers.rows[0]?.schedule.value, 'PT2H');
    const subscriptions = await f.workflow.database.pool.query(
      "SELECT 1 FROM event_subscriptions WHERE process_instance_id = $1 AND element_id = 'chargeCancelled'",
      [instance.id],
    );
    assert.equal(subscriptions.rowCount, 1, 'the new message boundary is subscribed');

    const completed = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/complete`,
      body: { worker_id: 'worker-1', variables: { paid: true } },
    });
    assert.equal(completed.statusCode, 204, completed.body);
    const detail = await f.instance(instance.id);
    assert.deepEqual(detail.active_element_ids, ['cool']);
    const cool = await f.workflow.database.pool.query<{ schedule: { value: string } }>(
      "SELECT schedule FROM timer_jobs WHERE process_instance_id = $1 AND element_id = 'cool'",
      [instance.id],
    );
    assert.equal(cool.rows[0]?.schedule.value, 'PT30M', 'the v2 timer');
    const kinds = (await history(instance.id)).map((h) => `${h.kind}:${h.element_id}`);
    assert.ok(kinds.indexOf('instanceStarted:shipping') < kinds.indexOf('migrated:shipping'));
    assert.ok(kinds.indexOf('migrated:shipping') < kinds.indexOf('elementCompleted:charge'));
    const entry = (await history(instance.id)).find((h) => h.kind === 'migrated');
    assert.deepEqual(entry?.data, { sourceDefinitionId: v1, targetDefinitionId: v2 });
  });

  test('execute refuses an instance of another version, an ended instance, and unmapped active elements (4xx, problems listed)', async () => {
    const instance = await startV1();
    const migrated = await post('/api/v1/migrations/execute', { plan: plan(), instance_ids: [instance.id] });
    assert.equal(migrated.statusCode, 200);
    const again = await post('/api/v1/migrations/execute', { plan: plan(), instance_ids: [instance.id] });
    assert.equal(again.statusCode, 400, again.body);
    assert.match(JSON.stringify(again.json()), /not of the source version/);

    const ended = await startV1();
    await post(`/api/v1/process-instances/${ended.id}/cancel`, {});
    const endedAnswer = await post('/api/v1/migrations/execute', { plan: plan(), instance_ids: [ended.id] });
    assert.equal(endedAnswer.statusCode, 400);
    assert.match(JSON.stringify(endedAnswer.json()), /cancelled/);

    const atCharge = await startV1();
    const unmapped = await post('/api/v1/migrations/execute', {
      plan: plan(v3, [{ source: 'start', target: 'start' }]),
      instance_ids: [atCharge.id],
    });
    assert.equal(unmapped.statusCode, 400, unmapped.body);
    const problems = (unmapped.json() as { details: { problems: Problem[] } }).details.problems;
    assert.deepEqual(
      problems.map((p) => p.element_id),
      ['charge'],
    );
    assert.equal((await f.instance(atCharge.id)).definition_id, v1, 'nothing changed');
  });

  test('execute over a filter runs a migrate batch that migrates every selected instance', async () => {
    const started = [];
    for (let i = 0; i < 5; i++) started.push(await startV1({ n: i }));
    const response = await post('/api/v1/migrations/execute', {
      plan: plan(),
      filter: { state: 'running', definition_id: v1 },
    });
    assert.equal(response.statusCode, 202, response.body);
    const { batch } = response.json() as { batch: { id: string; total: number; type: string } };
    assert.equal(batch.type, 'migrate');
    const finished = await waitForBatch(batch.id);
    assert.equal(finished.failed, 0, JSON.stringify(finished.failures));
    for (const instance of started) assert.equal((await f.instance(instance.id)).definition_id, v2);
  });

  test('a migrate batch over ids records the instances that cannot migrate and migrates the rest', async () => {
    const first = await startV1();
    const second = await startV1();
    const ended = await startV1();
    await post(`/api/v1/process-instances/${ended.id}/cancel`, {});
    const response = await post('/api/v1/migrations/execute', {
      plan: plan(),
      instance_ids: [first.id, ended.id, second.id],
    });
    assert.equal(response.statusCode, 202, response.body);
    const finished = (await waitForBatch((response.json() as { batch: { id: string } }).batch.id)) as {
      done: number;
      failed: number;
      failures: { instance_id: string; reason: string }[];
    };
    assert.deepEqual([finished.done, finished.failed], [2, 1]);
    assert.equal(finished.failures[0]?.instance_id, ended.id);
    assert.match(finished.failures[0]?.reason ?? '', /cancelled/);
    for (const { id } of [first, second]) assert.equal((await f.instance(id)).definition_id, v2);
    assert.equal((await f.instance(ended.id)).definition_id, v1);
  });

  test('only an Operator may plan, validate or execute', async () => {
    for (const role of ['reader', 'developer', 'outsider'] as const) {
      const response = await post('/api/v1/migrations/plan', plan(), f.tokens[role]);
      assert.equal(response.statusCode, 403, `${role}: ${response.body}`);
    }
  });
});
