import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { historyOf, subscriptionsOf } from './event-helpers.js';
import { completeTaskAt, openTasksOf } from './user-task-helpers.js';

describe("a signal thrown in an instance reaches that instance's own catches (signal-self.bpmn)", () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('signal-self.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const outboxCount = async () =>
    (await f.workflow.database.pool.query('SELECT 1 FROM event_outbox')).rowCount ?? 0;

  test('an intermediate signal throw fires its own catch, boundary and event sub-process once, and other instances', async () => {
    const thrower = await f.start('self-signal');
    const listener = await f.start('bell-listener');
    assert.deepEqual(await openTasksOf(f, thrower.id), ['held', 'ring']);
    await completeTaskAt(f, thrower.id, 'ring');
    assert.ok((await historyOf(f, thrower.id, 'elementCompleted')).includes('heard'), 'the catch event');
    assert.ok((await historyOf(f, thrower.id, 'elementCompleted')).includes('tripped'), 'the boundary event');
    assert.ok((await historyOf(f, thrower.id, 'elementTerminated')).includes('held'));
    assert.deepEqual(
      await openTasksOf(f, thrower.id),
      ['afterRing', 'espTask'],
      'the event sub-process ran once',
    );
    const started = await historyOf(f, thrower.id, 'elementActivated');
    assert.equal(started.filter((id) => id === 'onBellEsp').length, 1);
    assert.deepEqual(
      await subscriptionsOf(f, thrower.id),
      ['signal:bell'],
      'the event sub-process still listens',
    );
    assert.equal((await f.instance(listener.id)).state, 'completed', 'other instances get it after commit');
    assert.equal(await outboxCount(), 0, 'the broadcast was delivered');
  });

  test('a signal end event fires the event sub-process of its own instance once', async () => {
    const thrower = await f.start('self-signal-end');
    const listener = await f.start('bell-listener');
    await completeTaskAt(f, thrower.id, 'ring2');
    assert.deepEqual(await openTasksOf(f, thrower.id), ['espTask2']);
    assert.equal((await f.instance(thrower.id)).state, 'running', 'the event sub-process keeps it running');
    const started = await historyOf(f, thrower.id, 'elementActivated');
    assert.equal(started.filter((id) => id === 'onBellEsp2').length, 1);
    assert.equal((await f.instance(listener.id)).state, 'completed');
    await completeTaskAt(f, thrower.id, 'espTask2');
    assert.equal((await f.instance(thrower.id)).state, 'completed');
  });
});
