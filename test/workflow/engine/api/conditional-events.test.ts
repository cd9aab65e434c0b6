import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { historyOf } from './event-helpers.js';
import { completeTaskAt, openTasksOf } from './user-task-helpers.js';

/** Open user tasks of an instance, by element id, sorted. */
describe('conditional boundary events through the service', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('conditional-review.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const patchVariables = (id: string, variables: Record<string, unknown>) =>
    f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/process-instances/${id}/variables`,
      token: f.tokens.operator,
      body: { variables },
    });

  test('PATCH variables fires the non-interrupting boundary each time, then the interrupting one', async () => {
    const instance = await f.start('conditionalReview', { status: 'open', priority: 1 });
    assert.deepEqual(await openTasksOf(f, instance.id), ['review']);
    assert.equal((await patchVariables(instance.id, { priority: 8 })).statusCode, 200);
    assert.deepEqual(await openTasksOf(f, instance.id), ['escalate', 'review']);
    assert.equal((await patchVariables(instance.id, { note: 'x' })).statusCode, 200);
    assert.deepEqual(
      await openTasksOf(f, instance.id),
      ['escalate', 'review'],
      'another variable is filtered out',
    );
    assert.equal((await patchVariables(instance.id, { status: 'withdrawn' })).statusCode, 200);
    assert.deepEqual(await openTasksOf(f, instance.id), ['archive', 'escalate']);
    assert.ok((await historyOf(f, instance.id, 'elementTerminated')).includes('review'));
    const detail = await f.instance(instance.id);
    assert.equal(detail.state, 'running');
  });

  test('an external task completed in a parallel branch interrupts the user task', async () => {
    const instance = await f.start('conditionalReview', { status: 'open' });
    const [task] = (await f.fetch('worker-1', 'check')).filter((t) => t.process_instance_id === instance.id);
    assert.ok(task);
    const done = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/complete`,
      body: { worker_id: 'worker-1', variables: { status: 'withdrawn' } },
    });
    assert.equal(done.statusCode, 204, done.body);
    assert.deepEqual(await openTasksOf(f, instance.id), ['archive']);
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['archive']);
  });

  test('a user task completed with variables meeting its interrupting condition follows the boundary', async () => {
    const instance = await f.start('conditionalReview', { status: 'open' });
    await completeTaskAt(f, instance.id, 'review', { status: 'withdrawn' });
    assert.deepEqual(await openTasksOf(f, instance.id), ['archive']);
    assert.ok((await historyOf(f, instance.id, 'elementTerminated')).includes('review'));
  });

  test('a condition that is not a boolean is an incident on the event; retry evaluates it again', async () => {
    const instance = await f.start('conditionalReview', { status: 'open' });
    assert.equal((await patchVariables(instance.id, { flag: 'maybe' })).statusCode, 200);
    const failed = await f.instance(instance.id);
    assert.equal(failed.state, 'incident');
    const incidents = failed.incidents as { activity_id: string; kind: string }[];
    assert.deepEqual(
      incidents.map((incident) => `${incident.kind}:${incident.activity_id}`),
      ['expression:flagCheck'],
    );
    assert.equal((await patchVariables(instance.id, { flag: true })).statusCode, 200);
    assert.deepEqual(
      await openTasksOf(f, instance.id),
      ['review'],
      'not evaluated while the incident is open',
    );
    const retried = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${instance.id}/retry`,
      token: f.tokens.operator,
    });
    assert.ok(retried.statusCode < 300, retried.body);
    assert.equal((await f.instance(instance.id)).state, 'running');
    assert.deepEqual(await openTasksOf(f, instance.id), ['flagged', 'review']);
  });

  test('a condition true when the task is reached interrupts it before anyone sees it', async () => {
    const instance = await f.start('conditionalReview', { status: 'withdrawn' });
    assert.deepEqual(await openTasksOf(f, instance.id), ['archive']);
  });
});
