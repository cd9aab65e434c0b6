import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { completeUserTask, historyOf } from './event-helpers.js';

describe('compensation and transactions through the service', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('transaction-compensation.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  // Fetches the one task of `topic` for this instance and completes it with `variables`.
  async function work(instanceId: string, topic: string, variables: Record<string, unknown> = {}) {
    const task = (await f.fetch('worker-1', topic)).find((t) => t.process_instance_id === instanceId);
    assert.ok(task, `no ${topic} task for the instance`);
    const done = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/complete`,
      body: { worker_id: 'worker-1', variables },
    });
    assert.equal(done.statusCode, 204, done.body);
    return task;
  }

  test('a cancelled transaction runs the external-task handlers last completed first, then leaves by its cancel boundary', async () => {
    const instance = await f.start('txBooking', { hotel: 'Ritz' });
    await work(instance.id, 'book-hotel');
    await work(instance.id, 'charge-card', { result: 'cancel' });
    assert.deepEqual((await f.instance(instance.id)).active_element_ids.sort(), [
      'booking',
      'cancelled',
      'refund',
    ]);
    assert.deepEqual(await f.fetch('worker-1', 'cancel-hotel'), [], 'one handler at a time');
    await work(instance.id, 'refund');
    const cancelHotel = await work(instance.id, 'cancel-hotel');
    assert.equal(cancelHotel.variables.hotel, 'Ritz');
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['notifyCancelled']);
    await completeUserTask(f, instance.id);
    assert.equal((await f.instance(instance.id)).state, 'completed');
    assert.deepEqual(await historyOf(f, instance.id, 'compensationThrown'), ['cancelled']);
    const activated = await historyOf(f, instance.id, 'elementActivated');
    assert.deepEqual(
      activated.filter((id) => ['refund', 'cancelHotel', 'onCancel', 'confirm'].includes(id)),
      ['refund', 'cancelHotel', 'onCancel'],
    );
  });

  test('a hazard in the transaction is caught by its error boundary without compensation', async () => {
    const instance = await f.start('txBooking', {});
    await work(instance.id, 'book-hotel');
    await work(instance.id, 'charge-card', { result: 'hazard' });
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['handleHazard']);
    assert.deepEqual(await f.fetch('worker-1', 'cancel-hotel'), []);
    assert.deepEqual(await historyOf(f, instance.id, 'compensationThrown'), []);
  });
});
