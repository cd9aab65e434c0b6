import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CookieJar } from 'tough-cookie';
import { applyResources } from '../../src/records/schemas/apply-resources.js';
import { parseResourceText } from '../../src/records/schemas/resource-documents.js';
import { writeResources } from './support/auth-fixtures.js';
import { startTestProvider, type TestProvider } from './support/oidc-provider.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

const clientSecret = 'weft-test-client-secret';

function strategy(name: string, secret: string, provider: TestProvider, base: string): string {
  return `
apiVersion: weft.dev/v1
kind: AuthStrategy
metadata: { name: ${name} }
spec:
  type: oidc
  oidc:
    clientId: weft
    ${secret}
    discoveryUrl: ${provider.issuer}/.well-known/openid-configuration
    redirectUri: ${base}/api/auth/callback
    sessionSecure: false
    claimMapping: { actorId: sub }
`;
}

/** Runs the browser flow (a real cookie jar, manual redirects) and answers the status of /api/auth/me. */
async function login(base: string, strategyName: string): Promise<number> {
  const jar = new CookieJar();
  let url = `${base}/api/auth/login?strategy=${strategyName}&next=/api/auth/me`;
  for (let hop = 0; hop < 15; hop += 1) {
    const cookie = await jar.getCookieString(url);
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const value of response.headers.getSetCookie()) await jar.setCookie(value, url);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) return response.status;
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}

describe('OIDC clientSecret as a reference to an environment variable or a file', () => {
  let app: RecordsTestApp;
  let provider: TestProvider;
  let base: string;
  let secrets: string;

  before(async () => {
    app = await startRecordsApp({ CORP_SSO_CLIENT_SECRET: clientSecret, OTHER_CLIENT_SECRET: 'not-it' });
    await app.service.app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.service.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    provider = await startTestProvider(`${base}/api/auth/callback`, 'olivia');
    secrets = await mkdtemp(path.join(os.tmpdir(), 'weft-secrets-'));
    await writeFile(path.join(secrets, 'client-secret'), `${clientSecret}\n`);
  });
  after(async () => {
    await app.close();
    await provider.close();
    await rm(secrets, { recursive: true, force: true });
  });

  test('{env: NAME} and {file: path} reach the token exchange; the stored document holds only the reference', async () => {
    await writeResources(app.resourcesDir, {
      'sso-env.yaml': strategy('sso-env', 'clientSecret: { env: CORP_SSO_CLIENT_SECRET }', provider, base),
      'sso-file.yaml': strategy(
        'sso-file',
        `clientSecretRef: { file: ${path.join(secrets, 'client-secret')} }`,
        provider,
        base,
      ),
      'sso-wrong.yaml': strategy('sso-wrong', 'clientSecret: { env: OTHER_CLIENT_SECRET }', provider, base),
    });
    const report = await app.service.sync.syncFolder();
    assert.deepEqual(report?.rejected, []);
    assert.notEqual(await login(base, 'sso-wrong'), 200, 'the referenced value is what is sent');
    assert.equal(await login(base, 'sso-env'), 200, 'the provider accepts the secret from the environment');
    assert.equal(await login(base, 'sso-file'), 200, 'the provider accepts the secret from the file');
    const { rows } = await app.database.pool.query<{ document: string }>(
      `SELECT document::text AS document FROM records.resources WHERE kind = 'AuthStrategy'`,
    );
    assert.equal(rows.length, 3);
    for (const row of rows) assert.ok(!row.document.includes(clientSecret), 'no secret in the database');
  });

  test('a reference that does not resolve is refused at apply, naming it and never a value', async () => {
    await writeFile(path.join(secrets, 'empty'), '\n');
    const cases: [string, string, RegExp][] = [
      ['no-env', 'clientSecret: { env: NOT_SET_ANYWHERE }', /NOT_SET_ANYWHERE is not set/],
      ['weft-own', 'clientSecret: { env: RECORDS_JWT_SECRET }', /RECORDS_JWT_SECRET is a weft setting/],
      ['no-file', `clientSecret: { file: ${path.join(secrets, 'missing')} }`, /cannot be read \(ENOENT\)/],
      ['empty-file', `clientSecretRef: { file: ${path.join(secrets, 'empty')} }`, /is empty/],
      ['a-folder', `clientSecret: { file: ${secrets} }`, /not a regular file/],
      [
        'both',
        'clientSecret: { env: CORP_SSO_CLIENT_SECRET }\n    clientSecretRef: { env: CORP_SSO_CLIENT_SECRET }',
        /not be given together/,
      ],
    ];
    await writeResources(
      app.resourcesDir,
      Object.fromEntries(
        cases.map(([name, secret]) => [`${name}.yaml`, strategy(name, secret, provider, base)]),
      ),
    );
    const report = await app.service.sync.syncFolder();
    for (const [name, , reason] of cases) {
      const rejected = report?.rejected.find((entry) => entry.source === `${name}.yaml`);
      assert.ok(rejected, `${name} is refused`);
      assert.match(rejected.reason, reason, name);
      assert.match(rejected.path, /^spec\.oidc\.clientSecret/, name);
    }
    assert.ok(!JSON.stringify(report).includes(clientSecret), 'no secret value in any reason');
    const { rows } = await app.database.pool.query(
      `SELECT name FROM records.resources WHERE kind = 'AuthStrategy' AND name = ANY($1)`,
      [cases.map(([name]) => name)],
    );
    assert.deepEqual(rows, [], 'nothing refused was stored');
    for (const [name] of cases) await rm(path.join(app.resourcesDir, `${name}.yaml`));
  });

  test('`weft records apply` (another machine) checks the shape only; the service logs what does not resolve', async () => {
    const text = strategy('applied-elsewhere', 'clientSecret: { env: ONLY_ON_THE_SERVER }', provider, base);
    const report = await applyResources(app.database.pool, parseResourceText(text, 'x.yaml').documents);
    assert.deepEqual(report.rejected, []);
    assert.deepEqual(report.applied, ['AuthStrategy/applied-elsewhere']);
    await app.service.sync.refresh();
    assert.ok(!app.service.auth.oidcStrategies().has('applied-elsewhere'), 'left out until it resolves');
    assert.ok(app.service.auth.oidcStrategies().has('sso-env'));
  });
});
