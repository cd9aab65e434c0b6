import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPool } from '../../../../src/platform/database/pool.js';
import { deleteExpiredIdempotencyKeys } from '../../../../src/workflow/idempotency/idempotency-repository.js';
import { asRuntimeLogin } from '../../../helpers/runtime-login.js';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import type { MessageAnswer } from './event-helpers.js';

describe('Idempotency-Key on starts, messages and signals', () => {
  let f: EngineFixture;
  const owner = () => f.workflow.database.pool;
  before(async () => {
    f = await createEngineFixture();
    for (const fixture of ['payment.bpmn', 'messages.bpmn', 'signals.bpmn'])
      assert.equal((await f.deploy(fixture)).statusCode, 201);
  });
  after(() => f.close());

  const post = (url: string, body: Record<string, unknown>, key?: string, token = f.tokens.operator) =>
    f.workflow.request({
      method: 'POST',
      url,
      token,
      body: { org_id: f.orgId, ...body },
      ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
    });
  const start = (body: Record<string, unknown>, key?: string, token?: string) =>
    post('/api/v1/process-instances', { process_key: 'payment', ...body }, key, token);
  const instancesWith = async (businessKey: string) =>
    (
      await owner().query<{ id: string }>('SELECT id FROM process_instances WHERE business_key = $1', [
        businessKey,
      ])
    ).rows.map((row) => row.id);

  test('a retried start with the same key and body replays the stored 201 and starts nothing more', async () => {
    const first = await start({ business_key: 'idem-1', variables: { amount: 5 } }, 'start-key-1');
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await start({ business_key: 'idem-1', variables: { amount: 5 } }, 'start-key-1');
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body, 'byte for byte the stored body');
    assert.deepEqual(await instancesWith('idem-1'), [(first.json() as { id: string }).id]);
  });

  test('the same key with another body is 422 U422 and starts nothing', async () => {
    assert.equal((await start({ business_key: 'idem-2' }, 'start-key-2')).statusCode, 201);
    const other = await start({ business_key: 'idem-2', variables: { amount: 6 } }, 'start-key-2');
    assert.equal(other.statusCode, 422);
    assert.equal((other.json() as { code: string }).code, 'U422');
    assert.match((other.json() as { message: string }).message, /different request/);
    assert.equal((await instancesWith('idem-2')).length, 1);
  });

  test('concurrent twins with one key: one start commits, the other waits for it and replays it', async () => {
    const twins = await Promise.all(
      Array.from({ length: 4 }, () => start({ business_key: 'idem-3' }, 'start-key-3')),
    );
    for (const twin of twins) assert.equal(twin.statusCode, 201, twin.body);
    assert.equal(new Set(twins.map((twin) => twin.body)).size, 1, 'every twin got the same body');
    assert.equal(twins.filter((twin) => twin.headers['idempotent-replayed'] === 'true').length, 3);
    assert.equal((await instancesWith('idem-3')).length, 1);
  });

  test('keys are per caller: another user with the same key starts its own instance', async () => {
    assert.equal((await start({ business_key: 'idem-4' }, 'start-key-4')).statusCode, 201);
    const admin = await start({ business_key: 'idem-4' }, 'start-key-4', f.tokens.admin);
    assert.equal(admin.statusCode, 201);
    assert.equal(admin.headers['idempotent-replayed'], undefined);
    assert.equal((await instancesWith('idem-4')).length, 2);
  });

  test('a caller without the role gets 403 even for a key that holds a response', async () => {
    assert.equal((await start({ business_key: 'idem-5' }, 'start-key-5')).statusCode, 201);
    const reader = await start({ business_key: 'idem-5' }, 'start-key-5', f.tokens.reader);
    assert.equal(reader.statusCode, 403);
  });

  test('a failed request keeps no key: its retry runs again', async () => {
    const missing = await start({ process_key: 'no-such-process', business_key: 'idem-6' }, 'start-key-6');
    assert.equal(missing.statusCode, 404);
    const rows = await owner().query("SELECT 1 FROM idempotency_keys WHERE key = 'start-key-6'");
    assert.equal(rows.rowCount, 0, 'the key rolled back with the failed start');
    const retried = await start({ business_key: 'idem-6' }, 'start-key-6');
    assert.equal(retried.statusCode, 201);
  });

  test('an expired key is taken over by the next request', async () => {
    const first = await start({ business_key: 'idem-7' }, 'start-key-7');
    await owner().query(
      "UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'start-key-7'",
    );
    const later = await start({ business_key: 'idem-7' }, 'start-key-7');
    assert.equal(later.statusCode, 201);
    assert.equal(later.headers['idempotent-replayed'], undefined);
    assert.notEqual(later.body, first.body);
    assert.equal((await instancesWith('idem-7')).length, 2);
    const { rows } = await owner().query<{ hours: number }>(
      `SELECT round(extract(epoch FROM expires_at - created_at) / 3600) AS hours
       FROM idempotency_keys WHERE key = 'start-key-7'`,
    );
    assert.equal(Number(rows[0]?.hours), 24, 'kept 24 hours');
  });

  test('the runtime login sweeps expired keys in batches and leaves live ones', async () => {
    await owner().query(
      `INSERT INTO idempotency_keys (org_id, actor, key, request_hash, response_status, response_body, expires_at)
       SELECT $1, 'user:sweep', 'sweep-' || n, 'h', 201, '{}', now() - interval '1 minute'
       FROM generate_series(1, 7) AS n`,
      [f.orgId],
    );
    // No keyed request runs meanwhile, so the service's own lazy sweep does not either.
    const runtime = createPool(asRuntimeLogin(f.workflow.database.url, 'workflow'), {
      max: 1,
      applicationName: 'idempotency-sweep-test',
    });
    try {
      assert.equal(await deleteExpiredIdempotencyKeys(runtime, 5), 5);
      assert.equal(await deleteExpiredIdempotencyKeys(runtime, 5), 2);
      assert.equal(await deleteExpiredIdempotencyKeys(runtime, 5), 0);
    } finally {
      await runtime.end();
    }
    const live = await owner().query("SELECT 1 FROM idempotency_keys WHERE key = 'start-key-1'");
    assert.equal(live.rowCount, 1, 'a live key of an earlier test stays');
  });

  test('a malformed key is 400 U400 naming the header', async () => {
    for (const key of ['', 'x'.repeat(256), 'with space', 'tab\tinside', 'é']) {
      const response = await f.workflow.request({
        method: 'POST',
        url: '/api/v1/process-instances',
        token: f.tokens.operator,
        body: { org_id: f.orgId, process_key: 'payment' },
        headers: { 'idempotency-key': key },
      });
      assert.equal(response.statusCode, 400, `key ${JSON.stringify(key)}: ${response.body}`);
      assert.equal((response.json() as { code: string }).code, 'U400');
      assert.match(response.body, /idempotency-key/i);
    }
  });

  test('without a key every start runs', async () => {
    assert.equal((await start({ business_key: 'idem-8' })).statusCode, 201);
    assert.equal((await start({ business_key: 'idem-8' })).statusCode, 201);
    assert.equal((await instancesWith('idem-8')).length, 2);
  });

  test('a retried message correlates once: the replay gives the first answer', async () => {
    const waiting = await f.start('order', { orderId: 'IDEM-M1' });
    const body = { message_name: 'paid', correlation_key: 'IDEM-M1', variables: { paid: true } };
    const first = await post('/api/v1/messages', body, 'message-key-1');
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual((first.json() as MessageAnswer).correlated, [waiting.id]);
    const again = await post('/api/v1/messages', body, 'message-key-1');
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    const other = await post('/api/v1/messages', { ...body, correlation_key: 'IDEM-M2' }, 'message-key-1');
    assert.equal(other.statusCode, 422);
  });

  test('a retried message start starts one instance', async () => {
    const body = { message_name: 'signup', variables: { email: 'idem@example.com' } };
    const first = await post('/api/v1/messages', body, 'message-key-2');
    const again = await post('/api/v1/messages', body, 'message-key-2');
    assert.equal(first.statusCode, 200);
    assert.equal(again.body, first.body);
    const started = (first.json() as MessageAnswer).started;
    assert.equal(started.length, 1);
    const { rows } = await owner().query(
      "SELECT 1 FROM process_instances WHERE process_key = 'signup' AND variables->>'email' = 'idem@example.com'",
    );
    assert.equal(rows.length, 1);
  });

  test('a retried buffered message is buffered once, and the first wait that opens takes it', async () => {
    const body = { message_name: 'paid', correlation_key: 'IDEM-M3', time_to_live_ms: 60_000 };
    const first = await post('/api/v1/messages', body, 'message-key-3');
    assert.equal(first.statusCode, 200, first.body);
    const buffered = (first.json() as MessageAnswer).buffered;
    assert.ok(buffered !== null);
    const again = await post('/api/v1/messages', body, 'message-key-3');
    assert.equal(again.body, first.body);
    const { rows } = await owner().query(
      "SELECT id FROM buffered_messages WHERE correlation_key = 'IDEM-M3'",
    );
    assert.deepEqual(
      rows.map((row: { id: string }) => row.id),
      [buffered.id],
    );
    const instance = await f.start('order', { orderId: 'IDEM-M3' });
    assert.equal(
      (await f.instance(instance.id)).state,
      'completed',
      'the buffered message completed the wait',
    );
  });

  test('an unmatched message (404) keeps no key', async () => {
    const body = { message_name: 'paid', correlation_key: 'IDEM-NOBODY' };
    assert.equal((await post('/api/v1/messages', body, 'message-key-4')).statusCode, 404);
    const waiting = await f.start('order', { orderId: 'IDEM-NOBODY' });
    const retried = await post('/api/v1/messages', body, 'message-key-4');
    assert.equal(retried.statusCode, 200);
    assert.deepEqual((retried.json() as MessageAnswer).correlated, [waiting.id]);
  });

  test('a retried signal is broadcast once: one signal start, the replay gives the first answer', async () => {
    const countAlarmed = async () =>
      Number(
        (
          await owner().query<{ n: string }>(
            "SELECT count(*) AS n FROM process_instances WHERE process_key = 'alarmed'",
          )
        ).rows[0]?.n,
      );
    const before = await countAlarmed();
    const first = await post('/api/v1/signals', { signal_name: 'alarm' }, 'signal-key-1');
    assert.equal(first.statusCode, 200, first.body);
    assert.equal((first.json() as { started: string[] }).started.length, 1);
    const again = await post('/api/v1/signals', { signal_name: 'alarm' }, 'signal-key-1');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.equal(await countAlarmed(), before + 1);
    const other = await post(
      '/api/v1/signals',
      { signal_name: 'alarm', variables: { x: 1 } },
      'signal-key-1',
    );
    assert.equal(other.statusCode, 422);
    assert.equal(await countAlarmed(), before + 1);
  });
});
