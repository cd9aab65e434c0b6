import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import {
  completeUserTask,
  correlate,
  historyOf,
  postMessage,
  signal,
  subscriptionsOf,
} from './event-helpers.js';

describe('message starts with a correlation key, and nested event sub-processes', () => {
  let f: EngineFixture;
  const now = new Date('2026-11-21T10:00:00Z');
  before(async () => {
    f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '86400' }, { now: () => now });
    assert.equal((await f.deploy('outbox-and-keyed-starts.bpmn')).statusCode, 201);
    assert.equal((await f.deploy('nested-event-sub-processes.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  test('a message start with a key does not start a second instance while the first of that key is active', async () => {
    const first = await correlate(f, { message_name: 'open', correlation_key: 'T-1' });
    assert.equal(first.started.length, 1);
    const again = await postMessage(f, { message_name: 'open', correlation_key: 'T-1' });
    assert.equal(again.statusCode, 404, 'the key has an active instance: nothing matches');
    const other = await correlate(f, { message_name: 'open', correlation_key: 'T-2' });
    assert.equal(other.started.length, 1, 'another key starts its own instance');
    const buffered = await correlate(f, {
      message_name: 'open',
      correlation_key: 'T-1',
      time_to_live_ms: 1000,
    });
    assert.deepEqual(buffered.started, []);
    assert.ok(buffered.buffered, 'with a time to live the blocked message is buffered');

    await completeUserTask(f, first.started[0] ?? '');
    assert.equal((await f.instance(first.started[0] ?? '')).state, 'completed');
    const next = await correlate(f, { message_name: 'open', correlation_key: 'T-1' });
    assert.equal(next.started.length, 1, 'once it ended, the key starts a new instance');
    assert.notEqual(next.started[0], first.started[0]);
  });

  test('messages without a key start an instance each time', async () => {
    const a = await correlate(f, { message_name: 'open' });
    const b = await correlate(f, { message_name: 'open' });
    assert.equal(a.started.length, 1);
    assert.equal(b.started.length, 1);
    assert.notEqual(a.started[0], b.started[0]);
  });

  test('racing messages of one key start exactly one instance', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => postMessage(f, { message_name: 'open', correlation_key: 'RACE-1' })),
    );
    const started = answers.filter((answer) => answer.statusCode === 200);
    assert.equal(started.length, 1, answers.map((answer) => answer.body).join('\n'));
    assert.ok(answers.every((answer) => answer.statusCode === 200 || answer.statusCode === 404));
    const { rows } = await f.workflow.database.pool.query(
      `SELECT 1 FROM message_start_keys WHERE correlation_key = 'RACE-1'`,
    );
    assert.equal(rows.length, 1);
  });

  test('an event sub-process inside a running event sub-process opens, fires and closes with it', async () => {
    const instance = await f.start('nested', { caseId: 'N-1' });
    assert.deepEqual(await subscriptionsOf(f, instance.id), ['signal:escalate']);
    assert.deepEqual((await signal(f, { signal_name: 'escalate' })).delivered, [instance.id]);
    assert.deepEqual(
      await subscriptionsOf(f, instance.id),
      ['message:resolve', 'signal:escalate', 'signal:nudge'],
      'the escalation listens for its own event sub-processes',
    );
    await signal(f, { signal_name: 'nudge' });
    assert.ok((await historyOf(f, instance.id, 'elementCompleted')).includes('nudged'));
    const resolved = await correlate(f, { message_name: 'resolve', correlation_key: 'N-1' });
    assert.deepEqual(resolved.correlated, [instance.id]);
    assert.ok((await historyOf(f, instance.id, 'elementTerminated')).includes('review'));
    assert.ok((await historyOf(f, instance.id, 'elementCompleted')).includes('resolved'));
    assert.ok((await historyOf(f, instance.id, 'elementCompleted')).includes('escalation'));
    assert.deepEqual(
      await subscriptionsOf(f, instance.id),
      ['signal:escalate'],
      'the nested waits closed with the escalation',
    );
    const running = await f.instance(instance.id);
    assert.equal(running.state, 'running');
    assert.deepEqual(running.active_element_ids, ['work']);
    await completeUserTask(f, instance.id);
    assert.equal((await f.instance(instance.id)).state, 'completed');
    assert.deepEqual(await subscriptionsOf(f, instance.id), []);
  });

  test('a nested event sub-process closes when its enclosing event sub-process completes', async () => {
    const instance = await f.start('nested', { caseId: 'N-2' });
    await signal(f, { signal_name: 'escalate' });
    const tasks = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instance.id}`,
        token: f.tokens.reader,
      })
    ).json() as { id: string; activity_id: string }[];
    const review = tasks.find((task) => task.activity_id === 'review');
    assert.ok(review, JSON.stringify(tasks));
    const done = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/tasks/${review.id}/complete`,
      token: f.tokens.operator,
      body: {},
    });
    assert.equal(done.statusCode, 204, done.body);
    assert.deepEqual(await subscriptionsOf(f, instance.id), ['signal:escalate']);
    assert.equal((await postMessage(f, { message_name: 'resolve', correlation_key: 'N-2' })).statusCode, 404);
  });
});
