import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { historyOf, timersOf } from './event-helpers.js';

describe('conditional activity flows, standard loops and timer cycles through the service', () => {
  let f: EngineFixture;
  // Later than the database clock: tasks are due from the database's now.
  let now = new Date('2031-01-01T10:00:00Z');
  before(async () => {
    f = await createEngineFixture({}, { now: () => now });
    for (const fixture of ['routed-charge.bpmn', 'poll-loop.bpmn', 'cycle-catch.bpmn']) {
      const deployed = await f.deploy(fixture);
      assert.equal(deployed.statusCode, 201, deployed.body);
    }
  });
  after(() => f.close());

  const completeTask = async (topic: string, instanceId: string, variables: Record<string, unknown>) => {
    const task = (await f.fetch('worker-1', topic)).find((t) => t.process_instance_id === instanceId);
    assert.ok(task, `an external task on '${topic}'`);
    const done = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/complete`,
      body: { worker_id: 'worker-1', variables },
    });
    assert.equal(done.statusCode, 204, done.body);
  };

  test('a worker result picks the flows out of its task: every true condition, else the default', async () => {
    const both = await f.start('routedCharge');
    await completeTask('routed-charge', both.id, { paid: true, refunded: true });
    assert.deepEqual((await f.instance(both.id)).active_element_ids.sort(), ['receipt', 'refund']);

    const neither = await f.start('routedCharge');
    await completeTask('routed-charge', neither.id, { paid: false, refunded: false });
    assert.deepEqual((await f.instance(neither.id)).active_element_ids, ['review']);
    assert.ok((await historyOf(f, neither.id, 'flowTaken')).includes('toReview'));
  });

  test('an external task in a standard loop is handed out again until its condition is false', async () => {
    const instance = await f.start('pollLoop');
    await completeTask('poll', instance.id, { status: 'pending' });
    await completeTask('poll', instance.id, { status: 'pending' });
    assert.equal((await f.instance(instance.id)).state, 'running');
    await completeTask('poll', instance.id, { status: 'ready' });
    assert.equal((await f.instance(instance.id)).state, 'completed');
    const polls = (await historyOf(f, instance.id, 'elementCompleted')).filter((id) => id === 'poll');
    assert.equal(polls.length, 4, 'three iterations and the loop itself');
  });

  test('an intermediate timer catch with a cycle fires once, at its first occurrence', async () => {
    const instance = await f.start('cycleCatch');
    assert.equal(await timersOf(f, instance.id), 1);
    now = new Date(now.getTime() + 500);
    await f.workflow.service.fireDueTimers();
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['tick'], 'not due before PT1S');
    now = new Date(now.getTime() + 500);
    await f.workflow.service.fireDueTimers();
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['after']);
    assert.equal(await timersOf(f, instance.id), 0, 'the other repetitions are dropped');
    now = new Date(now.getTime() + 10_000);
    await f.workflow.service.fireDueTimers();
    assert.deepEqual(
      (await historyOf(f, instance.id, 'elementCompleted')).filter((id) => id === 'tick'),
      ['tick'],
    );
  });
});
