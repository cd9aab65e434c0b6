import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { historyOf, metricValue, signal, subscriptionsOf, variablesOf } from './event-helpers.js';

describe('signals: broadcast to catch events and boundaries, signal start and throw events', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('signals.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const alarmedInstances = async () =>
    (
      await f.workflow.database.pool.query<{ id: string; definition_id: string }>(
        "SELECT id, definition_id FROM process_instances WHERE process_key = 'alarmed' ORDER BY started_at, counter",
      )
    ).rows;

  test('a signal reaches every waiting instance of the org at once and starts the signal start process', async () => {
    const listeners = await Promise.all(Array.from({ length: 30 }, () => f.start('listener')));
    const guards = await Promise.all(Array.from({ length: 5 }, () => f.start('guarded')));
    assert.deepEqual(await subscriptionsOf(f, guards[0]?.id ?? ''), ['signal:alarm']);
    const deliveredBefore = await metricValue(f, 'weft_signals_total', { event: 'delivered' });
    const answer = await signal(f, { signal_name: 'alarm', variables: { level: 3 } });
    const expected = [...listeners, ...guards].map((i) => i.id).sort();
    assert.deepEqual([...answer.delivered].sort(), expected);
    assert.equal(answer.started.length, 1, 'the signal start process started once');
    for (const listener of listeners) assert.equal((await f.instance(listener.id)).state, 'completed');
    for (const guard of guards) {
      assert.equal((await f.instance(guard.id)).state, 'completed');
      assert.ok((await historyOf(f, guard.id, 'elementCompleted')).includes('stopped'));
    }
    const started = await f.instance(answer.started[0] ?? '');
    assert.equal(started.process_key, 'alarmed');
    assert.equal((await variablesOf(f, answer.started[0] ?? '')).level, 3);
    assert.equal(await metricValue(f, 'weft_signals_total', { event: 'delivered' }), deliveredBefore + 35);
  });

  test('a signal nobody waits for is 200 with nothing delivered; later waits do not see it', async () => {
    const answer = await signal(f, { signal_name: 'silence' });
    assert.deepEqual(answer, { started: [], delivered: [] });
    const late = await f.start('listener');
    assert.equal((await f.instance(late.id)).state, 'running');
  });

  test('a signal throw event broadcasts to the waiting instances and signal start events', async () => {
    const listener = await f.start('listener');
    const before = (await alarmedInstances()).length;
    const siren = await f.start('siren');
    assert.equal(siren.state, 'completed');
    assert.equal((await f.instance(listener.id)).state, 'completed');
    assert.equal((await alarmedInstances()).length, before + 1);
  });

  test('signal start skips disabled versions and uses the latest enabled one', async () => {
    assert.equal((await f.deploy('starts-v2.bpmn')).statusCode, 201);
    const versions = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/deployments?org_id=${f.orgId}&process_key=alarmed`,
        token: f.tokens.reader,
      })
    ).json() as { id: string }[];
    const [v2, v1] = versions;
    assert.ok(v1 && v2);
    const latest = await signal(f, { signal_name: 'alarm' });
    assert.equal((await f.instance(latest.started[0] ?? '')).definition_id, v2.id);
    for (const version of [v2, v1]) {
      const response = await f.workflow.request({
        method: 'PATCH',
        url: `/api/v1/deployments/${version.id}/disabled`,
        token: f.tokens.developer,
        body: { disabled: true },
      });
      assert.equal(response.statusCode, 200);
    }
    const before = (await alarmedInstances()).length;
    assert.deepEqual((await signal(f, { signal_name: 'alarm' })).started, []);
    assert.equal((await alarmedInstances()).length, before, 'no disabled version started');
  });

  test('the endpoint refuses bad input and readers', async () => {
    const post = (body: Record<string, unknown>, token = f.tokens.operator) =>
      f.workflow.request({
        method: 'POST',
        url: '/api/v1/signals',
        token,
        body: { org_id: f.orgId, ...body },
      });
    assert.equal((await post({})).statusCode, 400);
    assert.equal((await post({ signal_name: 'alarm', variables: 'x' })).statusCode, 400);
    assert.equal((await post({ signal_name: 'alarm' }, f.tokens.reader)).statusCode, 403);
  });
});
