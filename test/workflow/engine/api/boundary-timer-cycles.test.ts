import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

describe('non-interrupting boundary timer cycles', () => {
  let f: EngineFixture;
  let now = new Date('2026-11-21T10:00:00Z');
  const MINUTE = 60_000;
  before(async () => {
    f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '86400' }, { now: () => now });
    assert.equal((await f.deploy('reminders.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const reminders = async (id: string) => {
    const history = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances/${id}/history`,
        token: f.tokens.reader,
      })
    ).json() as { kind: string; element_id: string }[];
    return history.filter((entry) => entry.kind === 'elementCompleted' && entry.element_id === 'reminded')
      .length;
  };
  const timerRows = async (id: string) =>
    (
      await f.workflow.database.pool.query<{ due_at: Date; fired_count: number }>(
        'SELECT due_at, fired_count FROM timer_jobs WHERE process_instance_id = $1',
        [id],
      )
    ).rows;

  test('R3/PT10M fires three times while the task stays active, then stops', async () => {
    const instance = await f.start('remind');
    for (let firing = 1; firing <= 3; firing++) {
      now = new Date(now.getTime() + 10 * MINUTE);
      await f.workflow.service.fireDueTimers();
      assert.equal(await reminders(instance.id), firing, `firing ${firing}`);
      const detail = await f.instance(instance.id);
      assert.equal(detail.state, 'running');
      assert.deepEqual(detail.active_element_ids, ['review'], 'the task stays active');
    }
    assert.deepEqual(await timerRows(instance.id), [], 'three repetitions used up the timer');
    now = new Date(now.getTime() + 60 * MINUTE);
    await f.workflow.service.fireDueTimers();
    assert.equal(await reminders(instance.id), 3, 'no fourth reminder');
  });

  test('completing the task withdraws the cycle between two firings', async () => {
    const instance = await f.start('remind');
    now = new Date(now.getTime() + 10 * MINUTE);
    await f.workflow.service.fireDueTimers();
    assert.equal(await reminders(instance.id), 1);
    assert.deepEqual(
      (await timerRows(instance.id)).map((row) => row.fired_count),
      [1],
      'the cycle is re-armed after its first firing',
    );
    const tasks = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instance.id}`,
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
    assert.equal((await f.instance(instance.id)).state, 'completed');
    assert.deepEqual(await timerRows(instance.id), []);
    now = new Date(now.getTime() + 30 * MINUTE);
    await f.workflow.service.fireDueTimers();
    assert.equal(await reminders(instance.id), 1);
  });
});
