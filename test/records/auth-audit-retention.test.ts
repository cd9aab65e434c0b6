import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Clock } from '../../src/platform/clock.js';
import { deleteAuthAuditEntriesBefore } from '../../src/records/auth-audit/auth-audit-repository.js';
import { AuthAuditRetention } from '../../src/records/auth-audit/auth-audit-retention.js';
import { createMigratedDatabase, type TestDatabase } from '../helpers/database.js';
import { captureLogs } from '../helpers/log-capture.js';
import { asRecordsRuntimeLogin } from '../helpers/runtime-login.js';
import { startRecordsApp } from './support/records-app.js';

/** A clock the test moves by hand. */
class ManualClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

const DAY = 86_400_000;

describe('auth audit retention (RECORDS_AUTH_AUDIT_RETENTION_DAYS)', () => {
  let db: TestDatabase;
  let runtime: pg.Client;

  before(async () => {
    db = await createMigratedDatabase('records');
    runtime = new pg.Client({ connectionString: asRecordsRuntimeLogin(db.url) });
    await runtime.connect();
  });
  after(async () => {
    await runtime?.end();
    await db?.drop();
  });

  // `count` entries, the first `at` and then one a minute later each.
  async function seed(count: number, at: string, requestPrefix: string): Promise<void> {
    await db.pool.query(
      `INSERT INTO records.auth_audit (at, actor, operation, resource, strategy, outcome, fail_mode, request_id)
       SELECT $2::timestamptz + n * interval '1 minute', 'alice', 'get', 'acme/a/b/c/v1', 'jwt', 'success', 'NONE',
              $3 || n
       FROM generate_series(1, $1) AS n`,
      [count, at, requestPrefix],
    );
  }

  async function requestsLeft(prefix: string): Promise<number> {
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM records.auth_audit WHERE request_id LIKE $1 || '%'`,
      [prefix],
    );
    return rows[0]?.n ?? 0;
  }

  test('deletes, batch by batch, the entries older than the retention and keeps the newer ones', async () => {
    const clock = new ManualClock(new Date('2026-06-01T00:00:00Z'));
    await seed(53, '2026-03-01T00:00:00Z', 'old-'); // about 92 days ago
    await seed(4, '2026-05-20T00:00:00Z', 'recent-'); // 12 days ago
    let batches = 0;
    const counting = new Proxy(db.pool, {
      get(target, property, receiver) {
        if (property === 'query')
          return (...args: Parameters<typeof target.query>) => {
            batches++;
            return (target.query as (...a: unknown[]) => unknown)(...args);
          };
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const retention = new AuthAuditRetention({
      pool: counting,
      clock,
      logger: captureLogs('fatal').logger,
      retentionDays: 30,
      batchSize: 10,
      pauseMs: 0,
    });
    assert.equal(await retention.runOnce(), 53, 'the whole backlog in one run');
    assert.equal(batches, 6, 'ten entries per DELETE at most: five full batches and a last short one');
    assert.equal(await requestsLeft('old-'), 0);
    assert.equal(await requestsLeft('recent-'), 4);

    assert.equal(await retention.runOnce(), 0, 'nothing more is due');
    clock.advance(19 * DAY); // the recent ones are now 31 days old
    assert.equal(await retention.runOnce(), 4);
    assert.equal(await requestsLeft('recent-'), 0);
    await retention.close();
  });

  test('an entry another purge holds is skipped, not waited for', async () => {
    const clock = new ManualClock(new Date('2026-06-01T00:00:00Z'));
    await seed(3, '2026-01-01T00:00:00Z', 'held-');
    const holder = await db.pool.connect();
    const retention = new AuthAuditRetention({
      pool: db.pool,
      clock,
      logger: captureLogs('fatal').logger,
      retentionDays: 30,
      batchSize: 10,
      pauseMs: 0,
    });
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM records.auth_audit WHERE request_id = 'held-1' FOR UPDATE`);
      assert.equal(await retention.runOnce(), 2);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    assert.equal(await retention.runOnce(), 1);
    await retention.close();
  });

  test('the runtime login and the request role still cannot delete, change or truncate the log', async () => {
    await seed(2, '2026-01-01T00:00:00Z', 'kept-');
    for (const sql of [
      'DELETE FROM records.auth_audit',
      `UPDATE records.auth_audit SET actor = 'mallory'`,
      'TRUNCATE records.auth_audit',
    ]) {
      await assert.rejects(runtime.query(sql), { code: '42501' }, sql);
      await runtime.query('BEGIN');
      try {
        await runtime.query('SET LOCAL ROLE weft_records_api');
        await assert.rejects(runtime.query(sql), { code: '42501' }, `as weft_records_api: ${sql}`);
      } finally {
        await runtime.query('ROLLBACK');
      }
    }
    await assert.rejects(
      deleteAuthAuditEntriesBefore(runtime, new Date('2030-01-01T00:00:00Z'), 10),
      { code: '42501' },
      'the retention statement itself needs the owner',
    );
    assert.equal(await requestsLeft('kept-'), 2);
  });
});

describe('auth audit retention in the service', () => {
  test('unset: no retention job; set: the service deletes its own old entries through the owner pool', async () => {
    const plain = await startRecordsApp();
    try {
      assert.equal(plain.service.authAuditRetention, undefined);
    } finally {
      await plain.close();
    }

    const clock = new ManualClock(new Date());
    const app = await startRecordsApp({ RECORDS_AUTH_AUDIT_RETENTION_DAYS: '7' }, { clock });
    try {
      const retention = app.service.authAuditRetention;
      assert.ok(retention, 'the job exists when the variable is set');
      const response = await app.call('GET', '/api/platform/audit/auth', { roles: ['platform-auditor'] });
      assert.equal(response.statusCode, 200, response.body);
      await app.service.authAudit.flush();
      const written = async () =>
        (
          await app.database.pool.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM records.auth_audit WHERE request_id = $1',
            [response.headers['x-request-id']],
          )
        ).rows[0]?.n;
      assert.equal(await written(), 1);
      clock.advance(6 * DAY);
      assert.equal(await retention.runOnce(), 0, 'six days old: kept');
      clock.advance(DAY + 1_000);
      assert.ok((await retention.runOnce()) >= 1);
      assert.equal(await written(), 0, 'seven days and a second old: deleted');
    } finally {
      await app.close();
    }
  });
});
