import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { historyOf } from './event-helpers.js';
import { completeTaskAt, openTasksOf } from './user-task-helpers.js';

describe('escalation out of a called instance (escalation-calls.bpmn)', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('escalation-calls.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const childOf = async (parentId: string) => {
    const { rows } = await f.workflow.database.pool.query<{ id: string }>(
      'SELECT id FROM process_instances WHERE parent_instance_id = $1',
      [parentId],
    );
    assert.equal(rows.length, 1, 'one called instance');
    return rows[0]?.id ?? '';
  };
  const escalations = async (instanceId: string) => {
    const response = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/process-instances/${instanceId}/history`,
      token: f.tokens.reader,
    });
    return (response.json() as { kind: string; element_id: string; data: Record<string, unknown> }[])
      .filter((entry) => entry.kind === 'escalationThrown')
      .map((entry) => ({ element: entry.element_id, ...entry.data }));
  };
  const incidentCount = async (ids: string[]) =>
    (
      await f.workflow.database.pool.query('SELECT 1 FROM incidents WHERE process_instance_id = ANY($1)', [
        ids,
      ])
    ).rowCount;

  test("a non-interrupting boundary event on the call activity catches the child's escalation; both go on", async () => {
    const parent = await f.start('escalate-parent');
    const child = await childOf(parent.id);
    await completeTaskAt(f, child, 'step', { code: 'late' });
    assert.equal((await f.instance(child)).state, 'running', 'the child goes on');
    assert.deepEqual(await openTasksOf(f, child), ['finish']);
    assert.deepEqual(await openTasksOf(f, parent.id), ['lateNote']);
    assert.deepEqual(await escalations(child), [
      {
        element: 'throwLate',
        escalationCode: 'late',
        caught: false,
        caughtBy: null,
        propagatedToCaller: true,
      },
    ]);
    assert.deepEqual(await escalations(parent.id), [
      { element: 'review', escalationCode: 'late', caught: true, caughtBy: 'onLate' },
    ]);
    await completeTaskAt(f, child, 'finish');
    assert.equal((await f.instance(child)).state, 'completed');
    assert.deepEqual(await openTasksOf(f, parent.id), ['done', 'lateNote'], 'the call activity completed');
  });

  test('an escalation end event ending the child is caught by the caller before the call activity completes', async () => {
    const parent = await f.start('escalate-parent');
    const child = await childOf(parent.id);
    await completeTaskAt(f, child, 'step', { code: 'end' });
    assert.equal(
      (await f.instance(child)).state,
      'completed',
      'an escalation end event ends like a none end',
    );
    assert.deepEqual(await openTasksOf(f, parent.id), ['done', 'lateNote']);
    assert.deepEqual(await escalations(parent.id), [
      { element: 'review', escalationCode: 'late', caught: true, caughtBy: 'onLate' },
    ]);
    assert.equal(await incidentCount([parent.id, child]), 0);
  });

  test('an interrupting boundary event on the call activity catches it and cancels the child', async () => {
    const parent = await f.start('escalate-parent');
    const child = await childOf(parent.id);
    await completeTaskAt(f, child, 'step', { code: 'stop' });
    assert.equal((await f.instance(child)).state, 'cancelled');
    assert.deepEqual(await openTasksOf(f, child), []);
    assert.equal((await f.instance(parent.id)).state, 'completed');
    assert.ok((await historyOf(f, parent.id, 'elementCompleted')).includes('stopped'));
    assert.ok((await historyOf(f, parent.id, 'elementTerminated')).includes('review'));
    assert.equal(await incidentCount([parent.id, child]), 0);
  });

  test('an escalation the caller does not catch either changes nothing and raises no incident', async () => {
    const parent = await f.start('escalate-parent');
    const child = await childOf(parent.id);
    await completeTaskAt(f, child, 'step', { code: 'quiet' });
    assert.equal((await f.instance(child)).state, 'running');
    assert.equal((await f.instance(parent.id)).state, 'running');
    assert.deepEqual((await f.instance(parent.id)).active_element_ids, ['review']);
    assert.deepEqual(await escalations(parent.id), [
      { element: 'review', escalationCode: 'quiet', caught: false, caughtBy: null },
    ]);
    assert.equal(await incidentCount([parent.id, child]), 0);
    await completeTaskAt(f, child, 'finish');
    assert.deepEqual(await openTasksOf(f, parent.id), ['done']);
  });
});
