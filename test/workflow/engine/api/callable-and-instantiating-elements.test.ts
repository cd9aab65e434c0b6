import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { correlate, historyOf } from './event-helpers.js';

describe('global script tasks and instantiating receive tasks through the service', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    for (const fixture of ['global-script-task.bpmn', 'receive-start.bpmn']) {
      const deployed = await f.deploy(fixture);
      assert.equal(deployed.statusCode, 201, deployed.body);
    }
  });
  after(() => f.close());

  test('a call activity runs a global script task; its result comes back by the output mapping', async () => {
    const instance = await f.start('priceOrder', { amount: 21 });
    const detail = await f.instance(instance.id);
    assert.deepEqual(detail.active_element_ids, ['review']);
    assert.equal((detail.variables as { total: number }).total, 42);
  });

  test('the message of an instantiating receive task starts the process, and the task completes with it', async () => {
    const answer = await correlate(f, { message_name: 'order-placed', variables: { orderId: 'o-1' } });
    assert.equal(answer.started.length, 1);
    const id = answer.started[0] ?? '';
    const detail = await f.instance(id);
    assert.deepEqual(detail.active_element_ids, ['handle']);
    assert.deepEqual(detail.variables, { orderId: 'o-1' });
    assert.deepEqual(await historyOf(f, id, 'elementCompleted'), ['receive']);
  });
});
