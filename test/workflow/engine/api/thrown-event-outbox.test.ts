import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestWorkflow } from '../../../helpers/workflow.js';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

/** Rows of the thrown-event outbox, with their failed attempts. */
async function outboxRows(
  f: EngineFixture,
): Promise<{ name: string; correlation_key: string; attempts: number }[]> {
  const { rows } = await f.workflow.database.pool.query<{
    name: string;
    correlation_key: string;
    attempts: number;
  }>('SELECT name, correlation_key, attempts FROM event_outbox ORDER BY correlation_key');
  return rows;
}

describe('thrown messages and signals go through the outbox', () => {
  let f: EngineFixture;
  let now = new Date('2026-11-21T10:00:00Z');
  const moveClock = (ms: number) => (now = new Date(now.getTime() + ms));
  const sabotage = (on: boolean) =>
    f.workflow.database.pool.query(
      on ? 'INSERT INTO outbox_sabotage VALUES (true)' : 'DELETE FROM outbox_sabotage',
    );
  before(async () => {
    f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '86400' }, { now: () => now });
    assert.equal((await f.deploy('outbox-and-keyed-starts.bpmn')).statusCode, 201);
    // While outbox_sabotage has a row, deleting an outbox row fails: the thrower's after-commit
    // delivery dies after its commit, as in a crash, and only the row is left.
    await f.workflow.database.pool.query(`
      CREATE TABLE outbox_sabotage (on_ boolean);
      CREATE FUNCTION outbox_sabotage() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM outbox_sabotage) THEN RAISE EXCEPTION 'simulated crash'; END IF;
        RETURN OLD;
      END $$;
      CREATE TRIGGER outbox_sabotage BEFORE DELETE ON event_outbox FOR EACH ROW EXECUTE FUNCTION outbox_sabotage();`);
  });
  after(() => f.close());

  test('a thrown message is delivered right after the thrower commits, and its outbox row is gone', async () => {
    const receiver = await f.start('receiver', { orderId: 'FAST-1' });
    const shipper = await f.start('shipper', { orderId: 'FAST-1' });
    assert.equal(shipper.state, 'completed');
    assert.equal((await f.instance(receiver.id)).state, 'completed');
    assert.deepEqual(await outboxRows(f), []);
  });

  test('a thrown message survives a crash after the commit and is delivered by the executor', async () => {
    const receiver = await f.start('receiver', { orderId: 'CRASH-1' });
    await sabotage(true);
    const shipper = await f.start('shipper', { orderId: 'CRASH-1' });
    await sabotage(false);
    assert.equal(shipper.state, 'completed', 'the thrower committed');
    assert.equal((await f.instance(receiver.id)).state, 'running', 'the delivery was undone');
    assert.deepEqual(await outboxRows(f), [{ name: 'shipped', correlation_key: 'CRASH-1', attempts: 1 }]);
    assert.equal((await f.workflow.service.deliverThrownEvents()).claimed, 0, 'not before its backoff');
    moveClock(1_000);
    assert.deepEqual(await f.workflow.service.deliverThrownEvents(), { claimed: 1, fired: 1, failed: 0 });
    assert.equal((await f.instance(receiver.id)).state, 'completed');
    assert.equal(((await f.instance(receiver.id)).variables as Record<string, unknown>).orderId, 'CRASH-1');
    assert.deepEqual(await outboxRows(f), []);
    assert.equal((await f.workflow.service.deliverThrownEvents()).claimed, 0, 'delivered once');
  });

  test('a message thrown inside a timer firing is not delivered before that transaction commits', async () => {
    const receiver = await f.start('receiver', { orderId: 'LATE-1' });
    const sender = await f.start('lateShipper', { orderId: 'LATE-1' });
    moveClock(5 * 60_000);
    assert.equal((await f.workflow.service.fireDueTimers()).fired, 1);
    assert.equal((await f.instance(sender.id)).state, 'completed');
    // With no background loop in this test, the committed row waits for an executor.
    assert.deepEqual(await outboxRows(f), [{ name: 'shipped', correlation_key: 'LATE-1', attempts: 0 }]);
    assert.equal((await f.instance(receiver.id)).state, 'running');
    assert.equal((await f.workflow.service.deliverThrownEvents()).fired, 1);
    assert.equal((await f.instance(receiver.id)).state, 'completed');
  });

  test('two executors on one database deliver every thrown message exactly once', async () => {
    const keys = Array.from({ length: 15 }, (_, i) => `TWO-${i}`);
    const receivers: string[][] = [];
    for (const key of keys) {
      receivers.push([
        (await f.start('receiver', { orderId: key })).id,
        (await f.start('receiver', { orderId: key })).id,
      ]);
    }
    await sabotage(true);
    for (const key of keys) await f.start('shipper', { orderId: key });
    await sabotage(false);
    assert.equal((await outboxRows(f)).length, keys.length);
    moveClock(1_000);
    const other = await startTestWorkflow({ database: f.workflow.database, clock: { now: () => now } });
    try {
      const drain = async (service: { deliverThrownEvents(): Promise<{ claimed: number }> }) => {
        let delivered = 0;
        for (let claimed = -1; claimed !== 0;) {
          claimed = (await service.deliverThrownEvents()).claimed;
          delivered += claimed;
        }
        return delivered;
      };
      const [mine, theirs] = await Promise.all([
        drain(f.workflow.service),
        drain(other.service),
        drain(f.workflow.service),
        drain(other.service),
      ]).then((counts) => [counts[0]! + counts[2]!, counts[1]! + counts[3]!]);
      assert.equal(mine! + theirs!, keys.length, 'every row claimed once');
    } finally {
      await other.close();
    }
    assert.deepEqual(await outboxRows(f), []);
    for (const pair of receivers) {
      const states = await Promise.all(pair.map(async (id) => (await f.instance(id)).state));
      // Both receivers of a key wait since the same instant; either may be the one served.
      assert.deepEqual(
        states.sort(),
        ['completed', 'running'],
        'each message delivered once, to one receiver',
      );
    }
  });
});
