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
  timersOf,
} from './event-helpers.js';

describe('event-based gateways and event sub-processes', () => {
  let f: EngineFixture;
  let now = new Date('2026-11-21T10:00:00Z');
  const moveClock = (ms: number) => (now = new Date(now.getTime() + ms));
  before(async () => {
    f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '86400' }, { now: () => now });
    assert.equal((await f.deploy('event-gateway.bpmn')).statusCode, 201);
    assert.equal((await f.deploy('event-sub-processes.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  test('event gateway: the message wins, the timer and the signal are withdrawn', async () => {
    const instance = await f.start('race', { id: 'G-1' });
    assert.deepEqual(await subscriptionsOf(f, instance.id), ['message:answer', 'signal:abort']);
    assert.equal(await timersOf(f, instance.id), 1);
    assert.deepEqual((await correlate(f, { message_name: 'answer', correlation_key: 'G-1' })).correlated, [
      instance.id,
    ]);
    assert.equal((await f.instance(instance.id)).state, 'completed');
    assert.ok((await historyOf(f, instance.id, 'elementCompleted')).includes('answered'));
    assert.deepEqual(await subscriptionsOf(f, instance.id), []);
    assert.equal(await timersOf(f, instance.id), 0);
  });

  test('event gateway: the timer wins when it fires first, and the message no longer matches', async () => {
    const instance = await f.start('race', { id: 'G-2' });
    moveClock(60 * 60_000);
    await f.workflow.service.fireDueTimers();
    assert.equal((await f.instance(instance.id)).state, 'completed');
    assert.ok((await historyOf(f, instance.id, 'elementCompleted')).includes('timedOut'));
    assert.deepEqual(await subscriptionsOf(f, instance.id), []);
    assert.equal((await postMessage(f, { message_name: 'answer', correlation_key: 'G-2' })).statusCode, 404);
  });

  test('event gateway: the signal wins and the timer never fires', async () => {
    const instance = await f.start('race', { id: 'G-3' });
    assert.deepEqual((await signal(f, { signal_name: 'abort' })).delivered, [instance.id]);
    assert.ok((await historyOf(f, instance.id, 'elementCompleted')).includes('aborted'));
    assert.equal(await timersOf(f, instance.id), 0);
  });

  test('a non-interrupting signal event sub-process runs each time beside the work', async () => {
    const instance = await f.start('case', { caseId: 'C-1' });
    assert.deepEqual(await subscriptionsOf(f, instance.id), ['message:cancelCase', 'signal:audit']);
    assert.equal(await timersOf(f, instance.id), 1);
    await signal(f, { signal_name: 'audit' });
    await signal(f, { signal_name: 'audit' });
    const audited = (await historyOf(f, instance.id, 'elementCompleted')).filter((id) => id === 'audited');
    assert.equal(audited.length, 2);
    const running = await f.instance(instance.id);
    assert.equal(running.state, 'running');
    assert.deepEqual(running.active_element_ids, ['work']);
    await completeUserTask(f, instance.id);
    assert.equal((await f.instance(instance.id)).state, 'completed');
    assert.deepEqual(await subscriptionsOf(f, instance.id), [], 'its subscriptions close with the process');
    assert.equal(await timersOf(f, instance.id), 0);
  });

  test('a non-interrupting timer event sub-process fires once its duration passed', async () => {
    const instance = await f.start('case', { caseId: 'C-2' });
    moveClock(10 * 60_000);
    await f.workflow.service.fireDueTimers();
    assert.ok((await historyOf(f, instance.id, 'elementCompleted')).includes('reminded'));
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['work']);
    assert.equal(await timersOf(f, instance.id), 0, 'a one-shot timer start fires once');
  });

  test('an interrupting message event sub-process ends the work and every other listener', async () => {
    const instance = await f.start('case', { caseId: 'C-3' });
    const answer = await correlate(f, { message_name: 'cancelCase', correlation_key: 'C-3' });
    assert.deepEqual(answer.correlated, [instance.id]);
    const ended = await f.instance(instance.id);
    assert.equal(ended.state, 'completed');
    assert.ok((await historyOf(f, instance.id, 'elementTerminated')).includes('work'));
    assert.ok((await historyOf(f, instance.id, 'elementCompleted')).includes('cancelled'));
    assert.deepEqual(await subscriptionsOf(f, instance.id), []);
    assert.equal(await timersOf(f, instance.id), 0);
    const tasks = await f.workflow.database.pool.query(
      'SELECT 1 FROM user_tasks WHERE process_instance_id = $1',
      [instance.id],
    );
    assert.equal(tasks.rowCount, 0);
  });

  test('cancelling an instance closes its event sub-process subscriptions and timers', async () => {
    const instance = await f.start('case', { caseId: 'C-4' });
    const cancelled = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${instance.id}/cancel`,
      token: f.tokens.operator,
    });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.deepEqual(await subscriptionsOf(f, instance.id), []);
    assert.equal(await timersOf(f, instance.id), 0);
  });

  test('a buffered message reaches an event-based gateway branch as it opens', async () => {
    const answer = await correlate(f, {
      message_name: 'answer',
      correlation_key: 'G-9',
      time_to_live_ms: 3_600_000,
    });
    assert.ok(answer.buffered);
    const instance = await f.start('race', { id: 'G-9' });
    assert.equal((await f.instance(instance.id)).state, 'completed');
    assert.ok((await historyOf(f, instance.id, 'elementCompleted')).includes('answered'));
    assert.equal(await timersOf(f, instance.id), 0, 'the other branches were withdrawn');
  });

  test('a buffered message reaches a wait opened by a timer firing (inside the timer transaction)', async () => {
    const instance = await f.start('delayed', { id: 'D-1' });
    const answer = await correlate(f, {
      message_name: 'answer',
      correlation_key: 'D-1',
      time_to_live_ms: 3_600_000,
    });
    assert.ok(answer.buffered, 'nothing waits for it yet');
    moveClock(5 * 60_000);
    await f.workflow.service.fireDueTimers();
    assert.equal((await f.instance(instance.id)).state, 'completed');
    const { rowCount } = await f.workflow.database.pool.query(
      'SELECT 1 FROM buffered_messages WHERE id = $1',
      [answer.buffered.id],
    );
    assert.equal(rowCount, 0, 'the message was taken');
  });

  test('an interrupting timer event sub-process inside a sub-process ends only that sub-process', async () => {
    const late = await f.start('inner');
    const onTime = await f.start('inner');
    assert.equal(await timersOf(f, late.id), 1);
    await completeUserTask(f, onTime.id);
    assert.equal((await f.instance(onTime.id)).state, 'completed');
    assert.equal(await timersOf(f, onTime.id), 0, 'the sub-process ended and closed its timer');
    moveClock(60 * 60_000);
    await f.workflow.service.fireDueTimers();
    const expired = await f.instance(late.id);
    assert.equal(expired.state, 'completed');
    const completed = await historyOf(f, late.id, 'elementCompleted');
    assert.ok(completed.includes('expired') && completed.includes('box') && completed.includes('e2'));
    assert.ok((await historyOf(f, late.id, 'elementTerminated')).includes('job'));
  });
});
