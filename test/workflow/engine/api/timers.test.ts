import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

describe('timer catch events and boundary timers in running instances', () => {
  let f: EngineFixture;
  let now = new Date('2026-11-21T10:00:00Z');
  const moveClock = (ms: number) => (now = new Date(now.getTime() + ms));
  before(async () => {
    // Tokens must outlive the hours the clock is moved forward.
    f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '86400' }, { now: () => now });
    assert.equal((await f.deploy('timers.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const timerRows = async (instanceId: string) =>
    (
      await f.workflow.database.pool.query<{ element_id: string; due_at: Date }>(
        'SELECT element_id, due_at FROM timer_jobs WHERE process_instance_id = $1',
        [instanceId],
      )
    ).rows;

  test('an intermediate timer arms a job due after its duration and fires only once the clock passes it', async () => {
    const instance = await f.start('wait');
    assert.equal(instance.state, 'running');
    assert.deepEqual(await timerRows(instance.id), [
      { element_id: 'pause', due_at: new Date('2026-11-21T11:00:00Z') },
    ]);
    moveClock(59 * 60_000);
    await f.workflow.service.fireDueTimers();
    assert.equal((await f.instance(instance.id)).state, 'running', 'not due yet');
    moveClock(60_000);
    const fired = await f.workflow.service.fireDueTimers();
    assert.ok(fired.fired >= 1);
    assert.equal((await f.instance(instance.id)).state, 'completed');
    assert.deepEqual(await timerRows(instance.id), []);
  });

  test('an interrupting boundary timer ends the user task and takes its path; completing the task first disarms it', async () => {
    const late = await f.start('escalate');
    const onTime = await f.start('escalate');
    assert.equal((await timerRows(late.id)).length, 1);
    const tasks = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${onTime.id}`,
        token: f.tokens.reader,
      })
    ).json() as { id: string }[];
    const done = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/tasks/${tasks[0]?.id}/complete`,
      token: f.tokens.operator,
      body: {},
    });
    assert.equal(done.statusCode, 204);
    assert.deepEqual(await timerRows(onTime.id), [], 'completing the task withdrew its boundary timer');
    moveClock(31 * 60_000);
    await f.workflow.service.fireDueTimers();
    const escalated = await f.instance(late.id);
    assert.equal(escalated.state, 'completed');
    const history = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances/${late.id}/history`,
        token: f.tokens.reader,
      })
    ).json() as { kind: string; element_id: string }[];
    assert.ok(
      history.some((entry) => entry.element_id === 'escalated'),
      'the timer path was taken',
    );
    const open = await f.workflow.database.pool.query(
      'SELECT 1 FROM user_tasks WHERE process_instance_id = $1',
      [late.id],
    );
    assert.equal(open.rowCount, 0, 'the interrupted user task is gone');
  });
});
