import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { environmentVariableNames, loadConfig } from '../../src/platform/config/index.js';

describe('configuration', () => {
  test('defaults follow the interface decisions', () => {
    const config = loadConfig({});
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.workflow.port, 8080);
    assert.equal(config.records.port, 8081);
    assert.equal(config.dataDir, path.resolve('.weft'));
    assert.equal(config.workflow.jwtTtlSeconds, 3600);
    assert.equal(config.workflow.databaseUrl, undefined);
    assert.equal(config.production, false);
    assert.ok(Object.isFrozen(config) && Object.isFrozen(config.workflow));
  });

  test('values are converted to their types, and empty strings count as unset', () => {
    const config = loadConfig({ WORKFLOW_PORT: '9090', WORKFLOW_JWT_TTL_SECONDS: '60', RECORDS_PORT: '' });
    assert.equal(config.workflow.port, 9090);
    assert.equal(config.workflow.jwtTtlSeconds, 60);
    assert.equal(config.records.port, 8081);
  });

  test('invalid values fail at boot naming every variable, without echoing secrets', () => {
    assert.throws(
      () =>
        loadConfig({
          WORKFLOW_PORT: 'eighty',
          WORKFLOW_JWT_SIGNING_KEY: 'too-short-secret',
          WORKFLOW_DATABASE_URL: 'mysql://admin:hunter2@db',
        }),
      (error: Error) => {
        assert.match(error.message, /WORKFLOW_PORT/);
        assert.match(error.message, /WORKFLOW_JWT_SIGNING_KEY/);
        assert.match(error.message, /WORKFLOW_DATABASE_URL/);
        assert.ok(!error.message.includes('too-short-secret'));
        assert.ok(!error.message.includes('hunter2'), 'a URL may carry a password');
        return true;
      },
    );
  });

  test('whole-number settings take digits only: 1.5, 1e1, 0x10, +5, -1 and padded values are refused by name', () => {
    for (const value of ['1.5', '1e1', '0x10', '+5', '-1', ' 12', '12.0']) {
      assert.throws(
        () => loadConfig({ WEFT_DATABASE_POOL_SIZE: value, WORKFLOW_PORT: '9090' }),
        (error: Error) => {
          assert.match(error.message, /WEFT_DATABASE_POOL_SIZE: must be a whole number \(digits only\)/);
          assert.ok(error.message.includes(JSON.stringify(value)), 'the value as given is shown');
          assert.ok(!error.message.includes('WORKFLOW_PORT'), 'a valid setting is not named');
          return true;
        },
        value,
      );
    }
    assert.equal(loadConfig({ WEFT_DATABASE_POOL_SIZE: '12' }).databasePoolSize, 12);
    // An optional whole-number setting too.
    assert.throws(
      () => loadConfig({ WORKFLOW_INSTANCE_RETENTION_DAYS: '1e1' }),
      /WORKFLOW_INSTANCE_RETENTION_DAYS: must be a whole number/,
    );
  });

  test('the timer leader lease: 15 s with a heartbeat of a third by default; the heartbeat must be shorter', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.workflow.leaderLeaseMs, 15_000);
    assert.equal(defaults.workflow.leaderHeartbeatMs, 5_000);
    const short = loadConfig({ WORKFLOW_LEADER_LEASE_MS: '2000' });
    assert.equal(short.workflow.leaderHeartbeatMs, 666);
    assert.equal(
      loadConfig({ WORKFLOW_LEADER_LEASE_MS: '2000', WORKFLOW_LEADER_HEARTBEAT_MS: '500' }).workflow
        .leaderHeartbeatMs,
      500,
    );
    assert.throws(
      () => loadConfig({ WORKFLOW_LEADER_LEASE_MS: '2000', WORKFLOW_LEADER_HEARTBEAT_MS: '2000' }),
      /WORKFLOW_LEADER_HEARTBEAT_MS: must be shorter than WORKFLOW_LEADER_LEASE_MS/,
    );
    assert.throws(() => loadConfig({ WORKFLOW_LEADER_LEASE_MS: '10' }), /WORKFLOW_LEADER_LEASE_MS/);
  });

  test('retention of finished instances and of the auth audit log: off unless set, from 1 to 36,500 days', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.workflow.instanceRetentionDays, undefined);
    assert.equal(defaults.records.authAuditRetentionDays, undefined);
    const set = loadConfig({
      WORKFLOW_INSTANCE_RETENTION_DAYS: '90',
      RECORDS_AUTH_AUDIT_RETENTION_DAYS: '365',
    });
    assert.equal(set.workflow.instanceRetentionDays, 90);
    assert.equal(set.records.authAuditRetentionDays, 365);
    for (const wrong of ['0', '-1', 'forever', '36501'])
      assert.throws(
        () =>
          loadConfig({ WORKFLOW_INSTANCE_RETENTION_DAYS: wrong, RECORDS_AUTH_AUDIT_RETENTION_DAYS: wrong }),
        (error: Error) => {
          assert.match(error.message, /WORKFLOW_INSTANCE_RETENTION_DAYS/);
          assert.match(error.message, /RECORDS_AUTH_AUDIT_RETENTION_DAYS/);
          return true;
        },
        wrong,
      );
  });

  test('the audit signing key: Ed25519 PEM (also with \\n escapes), checked at boot, never echoed', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const defaults = loadConfig({ WEFT_DATA_DIR: '/tmp/weft-data' });
    assert.equal(defaults.records.audit.signingKey, undefined);
    assert.equal(defaults.records.audit.anchorDir, path.resolve('/tmp/weft-data/audit-anchors'));
    assert.equal(defaults.records.audit.anchorIntervalMilliseconds, 60_000);
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const escaped = loadConfig({
      RECORDS_AUDIT_SIGNING_KEY: pem.replace(/\n/g, '\\n'),
      RECORDS_AUDIT_ANCHOR_DIR: '/srv/anchors',
      RECORDS_AUDIT_ANCHOR_INTERVAL_MS: '5000',
    });
    assert.equal(escaped.records.audit.signingKey, pem);
    assert.equal(escaped.records.audit.anchorDir, path.resolve('/srv/anchors'));
    assert.equal(escaped.records.audit.anchorIntervalMilliseconds, 5000);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    for (const wrong of [rsa, 'not-a-key-but-a-secret-0123456789']) {
      assert.throws(
        () => loadConfig({ RECORDS_AUDIT_SIGNING_KEY: wrong }),
        (error: Error) => {
          assert.match(error.message, /RECORDS_AUDIT_SIGNING_KEY: must be an Ed25519 private key/);
          assert.ok(!error.message.includes(wrong.length > 100 ? wrong.slice(40, 80) : wrong), 'not echoed');
          return true;
        },
      );
    }
    assert.throws(
      () => loadConfig({ RECORDS_AUDIT_ANCHOR_INTERVAL_MS: '10' }),
      /RECORDS_AUDIT_ANCHOR_INTERVAL_MS/,
    );
  });

  test('the README configuration table lists every variable the code reads', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const missing = environmentVariableNames.filter((name) => !readme.includes(`| \`${name}\``));
    assert.deepEqual(missing, []);
  });
});

describe('database availability classification', () => {
  test('socket errors, aggregate connection errors and connection SQLSTATEs mean "unavailable"; others do not', async () => {
    const { isDatabaseUnavailable } = await import('../../src/platform/database/pool.js');
    const socketError = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    assert.equal(isDatabaseUnavailable(socketError), true);
    assert.equal(isDatabaseUnavailable(new AggregateError([socketError], 'all failed')), true);
    assert.equal(isDatabaseUnavailable(Object.assign(new Error('shutting down'), { code: '57P01' })), true);
    assert.equal(isDatabaseUnavailable(Object.assign(new Error('duplicate'), { code: '23505' })), false);
    assert.equal(isDatabaseUnavailable(new Error('something else')), false);
  });
});
