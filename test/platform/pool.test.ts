import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPool } from '../../src/platform/database/pool.js';
import { createMigratedDatabase, type TestDatabase } from '../helpers/database.js';
import { captureLogs } from '../helpers/log-capture.js';

let db: TestDatabase;
before(async () => (db = await createMigratedDatabase('workflow')));
after(() => db.drop());

test('an idle connection the server ends is logged by its message and code, without its client', async () => {
  const logs = captureLogs('warn');
  const pool = createPool(db.url, { max: 1, applicationName: 'weft-pool-test', logger: logs.logger });
  try {
    const client = await pool.connect();
    const pid = (client as unknown as { processID: number }).processID;
    client.release();
    await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    for (let i = 0; i < 100 && logs.messages(/idle database connection failed/).length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const [line] = logs.messages(/idle database connection failed/);
    const err = line?.err as { message?: string; code?: string } | undefined;
    assert.equal(err?.message, 'terminating connection due to administrator command');
    assert.equal(err?.code, '57P01');
    assert.doesNotMatch(logs.text(), /connectionParameters|parsedStatements/);
    assert.equal((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one, 1, 'the pool recovers');
  } finally {
    await pool.end();
  }
});
