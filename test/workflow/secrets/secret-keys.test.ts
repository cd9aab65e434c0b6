import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../src/platform/config/index.js';
import { rotateSecretsKey } from '../../../src/workflow/secrets/rotate-key.js';
import {
  openSecret,
  sealSecret,
  SecretDecryptionError,
} from '../../../src/workflow/secrets/secret-cipher.js';
import { findSecrets, upsertSecret } from '../../../src/workflow/secrets/secret-repository.js';
import {
  createKeyring,
  parseSecretsKey,
  resolveSecretsKeyring,
} from '../../../src/workflow/secrets/secrets-keyring.js';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';
import { captureLogs } from '../../helpers/log-capture.js';

const newKey = () => parseSecretsKey(randomBytes(32).toString('base64'), 'TEST');
const orgA = '11111111-1111-4111-8111-111111111111';

describe('secret encryption', () => {
  test('AES-256-GCM round trip with a fresh nonce each time, bound to org and name', () => {
    const key = newKey();
    const keyring = createKeyring(key);
    const one = sealSecret(key, orgA, 'token', 'value-1');
    const two = sealSecret(key, orgA, 'token', 'value-1');
    assert.notDeepEqual(one.nonce, two.nonce);
    assert.notDeepEqual(one.ciphertext, two.ciphertext);
    assert.equal(openSecret(keyring, orgA, 'token', one), 'value-1');
    assert.throws(
      () => openSecret(keyring, '22222222-2222-4222-8222-222222222222', 'token', one),
      SecretDecryptionError,
    );
    assert.throws(() => openSecret(keyring, orgA, 'other', one), SecretDecryptionError);
    const tampered = { ...one, ciphertext: Buffer.from(one.ciphertext) };
    tampered.ciphertext[0] = (tampered.ciphertext[0] ?? 0) ^ 1;
    assert.throws(() => openSecret(keyring, orgA, 'token', tampered), SecretDecryptionError);
    assert.throws(() => openSecret(createKeyring(newKey()), orgA, 'token', one), /not configured/);
  });

  test('keys must be 32 bytes of base64', () => {
    assert.throws(
      () => parseSecretsKey(randomBytes(16).toString('base64'), 'WORKFLOW_SECRETS_KEY'),
      /32 bytes/,
    );
    assert.throws(() => loadConfig({ WORKFLOW_SECRETS_KEY: 'short' }), /WORKFLOW_SECRETS_KEY/);
  });

  test('without WORKFLOW_SECRETS_KEY a development key is generated once with a warning; production refuses', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-secrets-'));
    const logs = captureLogs('warn');
    const config = loadConfig({ WEFT_DATA_DIR: dataDir });
    const first = await resolveSecretsKeyring(config, logs.logger);
    const second = await resolveSecretsKeyring(config, logs.logger);
    assert.equal(first.current.id, second.current.id);
    assert.equal(first.current.bytes.length, 32);
    assert.ok((await readdir(dataDir)).includes('workflow-secrets-key'));
    assert.equal(logs.messages(/WORKFLOW_SECRETS_KEY is unset/).length, 2);
    await assert.rejects(
      resolveSecretsKeyring(loadConfig({ WEFT_DATA_DIR: dataDir, NODE_ENV: 'production' }), logs.logger),
      /WORKFLOW_SECRETS_KEY is required/,
    );
  });
});

describe('secrets key rotation', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createMigratedDatabase('workflow');
  });
  after(() => database.drop());

  test('rotation re-encrypts every value under the new key; the old key is then no longer needed', async () => {
    const { rows } = await database.pool.query<{ id: string }>(
      `INSERT INTO orgs (name, slug) VALUES ('Rot', 'rot'), ('Other', 'other') RETURNING id`,
    );
    const orgs = rows.map((row) => row.id);
    const oldKey = newKey();
    for (const org of orgs) {
      for (let i = 0; i < 5; i++) {
        await upsertSecret(
          database.pool,
          org,
          `s${i}`,
          sealSecret(oldKey, org, `s${i}`, `value ${org} ${i}`),
        );
      }
    }
    const fresh = newKey();
    const keyring = createKeyring(fresh, [oldKey]);
    const report = await rotateSecretsKey(database.pool, keyring, 3);
    assert.deepEqual(report, { reencrypted: 10, keyId: fresh.id });
    assert.deepEqual(
      (await rotateSecretsKey(database.pool, keyring)).reencrypted,
      0,
      'a second run has nothing to do',
    );
    const onlyNew = createKeyring(fresh);
    for (const org of orgs) {
      const stored = await findSecrets(database.pool, org, ['s0', 's1', 's2', 's3', 's4']);
      assert.equal(stored.length, 5);
      for (const row of stored) {
        assert.equal(row.keyId, fresh.id);
        assert.equal(openSecret(onlyNew, org, row.name, row), `value ${org} ${row.name.slice(1)}`);
      }
    }
  });

  test('a value under an unknown key stops the rotation naming the secret, not its value', async () => {
    const { rows } = await database.pool.query<{ id: string }>(
      `INSERT INTO orgs (name, slug) VALUES ('Lost', 'lost') RETURNING id`,
    );
    const org = rows[0]?.id ?? '';
    await upsertSecret(database.pool, org, 'lost', sealSecret(newKey(), org, 'lost', 'the lost value'));
    const rotation = rotateSecretsKey(database.pool, createKeyring(newKey()));
    await assert.rejects(rotation, (error: Error) => {
      // The rows of the first test are under a key this keyring lacks too; either may come first.
      assert.match(
        error.message,
        /secret '(lost|s\d)' is encrypted with key [0-9a-f]{16}, which is not configured/,
      );
      assert.ok(!/the lost value|value [0-9a-f]{8}-/.test(error.message));
      return true;
    });
  });
});
