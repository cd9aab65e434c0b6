import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import {
  completeUserTask,
  correlate,
  historyOf,
  metricValue,
  postMessage,
  subscriptionsOf,
  variablesOf,
} from './event-helpers.js';

describe('messages: catch events, receive tasks, boundaries, start events, throws and buffering', () => {
  let f: EngineFixture;
  let now = new Date('2026-11-21T10:00:00Z');
  const moveClock = (ms: number) => (now = new Date(now.getTime() + ms));
  before(async () => {
    f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '86400' }, { now: () => now });
    assert.equal((await f.deploy('messages.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  test('an intermediate message catch is correlated by name and key to the one instance waiting with that key', async () => {
    const a = await f.start('order', { orderId: 'A-1' });
    const b = await f.start('order', { orderId: 'B-1' });
    assert.deepEqual(await subscriptionsOf(f, a.id), ['message:paid']);
    const answer = await correlate(f, {
      message_name: 'paid',
      correlation_key: 'B-1',
      variables: { amount: 12 },
    });
    assert.deepEqual(answer, { started: [], correlated: [b.id], buffered: null });
    const done = await f.instance(b.id);
    assert.equal(done.state, 'completed');
    assert.equal((await variablesOf(f, b.id)).amount, 12, 'the message variables reach the instance');
    assert.deepEqual(await subscriptionsOf(f, b.id), [], 'the subscription closed with its wait');
    assert.equal((await f.instance(a.id)).state, 'running', 'the other key still waits');
  });

  test('a message that matches nothing is 404 U404 and counted as unmatched', async () => {
    const before = await metricValue(f, 'weft_messages_unmatched_total', { outcome: 'dropped' });
    const response = await postMessage(f, { message_name: 'paid', correlation_key: 'nobody' });
    assert.equal(response.statusCode, 404);
    assert.equal((response.json() as { code: string }).code, 'U404');
    assert.equal(await metricValue(f, 'weft_messages_unmatched_total', { outcome: 'dropped' }), before + 1);
  });

  test('a message start event starts the latest enabled version; its receive task then correlates by key', async () => {
    const startedBefore = await metricValue(f, 'weft_messages_started_total');
    const answer = await correlate(f, { message_name: 'signup', variables: { email: 'ann@example.com' } });
    assert.equal(answer.started.length, 1);
    assert.deepEqual(answer.correlated, []);
    const id = answer.started[0] ?? '';
    const instance = await f.instance(id);
    assert.equal(instance.process_key, 'signup');
    assert.deepEqual(instance.active_element_ids, ['confirm']);
    assert.equal(await metricValue(f, 'weft_messages_started_total'), startedBefore + 1);
    const confirmed = await correlate(f, { message_name: 'confirmed', correlation_key: 'ann@example.com' });
    assert.deepEqual(confirmed.correlated, [id]);
    assert.equal((await f.instance(id)).state, 'completed');
  });

  test('a non-interrupting message boundary runs its path and leaves the task; an interrupting one ends it', async () => {
    const instance = await f.start('approval', { requestId: 'R-7' });
    assert.deepEqual(await subscriptionsOf(f, instance.id), ['message:ping', 'message:withdrawn']);
    assert.deepEqual((await correlate(f, { message_name: 'ping' })).correlated, [instance.id]);
    const pinged = await f.instance(instance.id);
    assert.equal(pinged.state, 'running');
    assert.deepEqual(pinged.active_element_ids, ['review']);
    assert.ok((await historyOf(f, instance.id, 'elementCompleted')).includes('pinged'));
    assert.deepEqual(
      await subscriptionsOf(f, instance.id),
      ['message:ping', 'message:withdrawn'],
      'a non-interrupting message boundary stays subscribed while its task runs (Camunda 7)',
    );
    assert.deepEqual((await correlate(f, { message_name: 'ping' })).correlated, [instance.id]);
    const pingedTwice = (await historyOf(f, instance.id, 'elementCompleted')).filter((id) => id === 'pinged');
    assert.equal(pingedTwice.length, 2, 'the second message ran the boundary path again');
    const withdrawn = await correlate(f, { message_name: 'withdrawn', correlation_key: 'R-7' });
    assert.deepEqual(withdrawn.correlated, [instance.id]);
    const ended = await f.instance(instance.id);
    assert.equal(ended.state, 'completed');
    assert.ok((await historyOf(f, instance.id, 'elementTerminated')).includes('review'));
    const tasks = await f.workflow.database.pool.query(
      'SELECT 1 FROM user_tasks WHERE process_instance_id = $1',
      [instance.id],
    );
    assert.equal(tasks.rowCount, 0, 'the interrupted user task is gone');
  });

  test('completing the task first withdraws its message boundaries', async () => {
    const instance = await f.start('approval', { requestId: 'R-8' });
    await completeUserTask(f, instance.id);
    assert.equal((await f.instance(instance.id)).state, 'completed');
    assert.deepEqual(await subscriptionsOf(f, instance.id), []);
    const late = await postMessage(f, { message_name: 'withdrawn', correlation_key: 'R-8' });
    assert.equal(late.statusCode, 404);
  });

  test('a send task and a message end event deliver to other instances of the org, one message each', async () => {
    const first = await f.start('order', { orderId: 'X-1' });
    const second = await f.start('order', { orderId: 'X-1' });
    const sender = await f.start('invoicing', { orderId: 'X-1' });
    assert.equal(sender.state, 'completed');
    assert.equal((await f.instance(first.id)).state, 'completed', 'the send task reached the oldest');
    assert.equal((await f.instance(second.id)).state, 'completed', 'the end event reached the next');
    assert.equal((await variablesOf(f, first.id)).orderId, 'X-1');
  });

  test('a buffered message is taken by the first subscription that opens within its time to live', async () => {
    const answer = await correlate(f, {
      message_name: 'paid',
      correlation_key: 'LATE-1',
      variables: { via: 'buffer' },
      time_to_live_ms: 60_000,
    });
    assert.deepEqual(answer.started, []);
    assert.deepEqual(answer.correlated, []);
    assert.ok(answer.buffered);
    assert.equal(answer.buffered.expires_at, new Date(now.getTime() + 60_000).toISOString());
    moveClock(30_000);
    const taker = await f.start('order', { orderId: 'LATE-1' });
    const taken = await f.instance(taker.id);
    assert.equal(taken.state, 'completed', 'the wait took the buffered message as it opened');
    assert.equal((await variablesOf(f, taker.id)).via, 'buffer');
    const next = await f.start('order', { orderId: 'LATE-1' });
    assert.equal((await f.instance(next.id)).state, 'running', 'a buffered message is delivered once');
  });

  test('an expired buffered message is never delivered, and is cleaned up', async () => {
    const answer = await correlate(f, {
      message_name: 'paid',
      correlation_key: 'LATE-2',
      time_to_live_ms: 1_000,
    });
    assert.ok(answer.buffered);
    moveClock(2_000);
    const waiter = await f.start('order', { orderId: 'LATE-2' });
    assert.equal((await f.instance(waiter.id)).state, 'running');
    // Buffering the next message sweeps the expired ones.
    await correlate(f, { message_name: 'other', time_to_live_ms: 1_000 });
    const { rowCount } = await f.workflow.database.pool.query(
      'SELECT 1 FROM buffered_messages WHERE id = $1',
      [answer.buffered.id],
    );
    assert.equal(rowCount, 0);
  });

  test('a message with a time to live is not buffered when it matches', async () => {
    const waiter = await f.start('order', { orderId: 'NOW-1' });
    const answer = await correlate(f, {
      message_name: 'paid',
      correlation_key: 'NOW-1',
      time_to_live_ms: 60_000,
    });
    assert.deepEqual(answer, { started: [], correlated: [waiter.id], buffered: null });
  });

  test('100 concurrent messages with distinct keys correlate one to one with 100 waiting instances', async () => {
    const waiting = await Promise.all(
      Array.from({ length: 100 }, (_, i) => f.start('order', { orderId: `RACE-${i}` })),
    );
    const correlatedBefore = await metricValue(f, 'weft_messages_correlated_total');
    const answers = await Promise.all(
      waiting.map((_, i) =>
        correlate(f, { message_name: 'paid', correlation_key: `RACE-${i}`, variables: { n: i } }),
      ),
    );
    answers.forEach((answer, i) => assert.deepEqual(answer.correlated, [waiting[i]?.id]));
    assert.equal(await metricValue(f, 'weft_messages_correlated_total'), correlatedBefore + 100);
    const { rows } = await f.workflow.database.pool.query<{ state: string; n: number; key: string }>(
      `SELECT state, (variables->>'n')::int AS n, variables->>'orderId' AS key FROM process_instances
       WHERE id = ANY($1::uuid[])`,
      [waiting.map((w) => w.id)],
    );
    assert.equal(rows.length, 100);
    for (const row of rows) {
      assert.equal(row.state, 'completed');
      assert.equal(row.key, `RACE-${row.n}`, 'each instance got the message with its key');
    }
  });

  test('two concurrent messages for one waiting instance: exactly one correlates, the other is 404', async () => {
    const waiter = await f.start('order', { orderId: 'ONE-1' });
    const responses = await Promise.all(
      [1, 2].map((n) => postMessage(f, { message_name: 'paid', correlation_key: 'ONE-1', variables: { n } })),
    );
    assert.deepEqual(responses.map((r) => r.statusCode).sort(), [200, 404]);
    const winner = responses.find((r) => r.statusCode === 200)?.json() as { correlated: string[] };
    assert.deepEqual(winner.correlated, [waiter.id]);
    const history = await historyOf(f, waiter.id, 'elementCompleted');
    assert.equal(history.filter((id) => id === 'payment').length, 1, 'the catch event completed once');
  });

  test('the endpoint refuses bad input, readers, outsiders and anonymous callers', async () => {
    assert.equal((await postMessage(f, { message_name: '' })).statusCode, 400);
    assert.equal((await postMessage(f, { message_name: 'paid', time_to_live_ms: -1 })).statusCode, 400);
    assert.equal((await postMessage(f, { message_name: 'paid', extra: 1 })).statusCode, 400);
    assert.equal((await postMessage(f, { message_name: 'paid', variables: [1] })).statusCode, 400);
    const badOrg = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/messages',
      token: f.tokens.operator,
      body: { org_id: 'not-a-uuid', message_name: 'paid' },
    });
    assert.equal(badOrg.statusCode, 400);
    assert.equal((await postMessage(f, { message_name: 'paid' }, f.tokens.reader)).statusCode, 403);
    assert.equal((await postMessage(f, { message_name: 'paid' }, f.tokens.outsider)).statusCode, 403);
    const anonymous = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/messages',
      body: { org_id: f.orgId, message_name: 'paid' },
    });
    assert.equal(anonymous.statusCode, 401);
  });

  test('message start skips disabled versions and uses the latest enabled one', async () => {
    assert.equal((await f.deploy('starts-v2.bpmn')).statusCode, 201);
    const versions = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/deployments?org_id=${f.orgId}&process_key=signup`,
        token: f.tokens.reader,
      })
    ).json() as { id: string; version: number }[];
    const [v2, v1] = versions;
    assert.ok(v1 && v2 && v2.version === 2);
    const latest = await correlate(f, { message_name: 'signup', variables: { email: 'bo@example.com' } });
    assert.equal((await f.instance(latest.started[0] ?? '')).definition_id, v2.id);
    const disable = async (id: string) => {
      const response = await f.workflow.request({
        method: 'PATCH',
        url: `/api/v1/deployments/${id}/disabled`,
        token: f.tokens.developer,
        body: { disabled: true },
      });
      assert.equal(response.statusCode, 200);
    };
    await disable(v2.id);
    const older = await correlate(f, { message_name: 'signup', variables: { email: 'cy@example.com' } });
    assert.equal((await f.instance(older.started[0] ?? '')).definition_id, v1.id);
    await disable(v1.id);
    assert.equal(
      (await postMessage(f, { message_name: 'signup' })).statusCode,
      404,
      'no enabled version starts',
    );
  });
});
