import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, screenshot, seriousViolations } from '../helpers/browser.js';
import { writeResources } from '../records/support/auth-fixtures.js';
import { startTestProvider, type TestProvider } from '../records/support/oidc-provider.js';
import { startRecordsApp, type RecordsTestApp } from '../records/support/records-app.js';

describe('records console: log in through OIDC', () => {
  let records: RecordsTestApp;
  let provider: TestProvider;
  let browser: Browser;
  let origin: string;

  before(async () => {
    records = await startRecordsApp();
    origin = new URL(await records.service.app.listen({ host: '127.0.0.1', port: 0 })).origin;
    provider = await startTestProvider(`${origin}/api/auth/callback`, 'olivia');
    await writeResources(records.resourcesDir, {
      'oidc.yaml': `
apiVersion: weft.dev/v1
kind: AuthStrategy
metadata: { name: corp-sso }
spec:
  type: oidc
  displayName: Corporate SSO
  oidc:
    clientId: weft
    clientSecret: weft-test-client-secret
    discoveryUrl: ${provider.issuer}/.well-known/openid-configuration
    redirectUri: ${origin}/api/auth/callback
    scopes: [openid, email, profile]
    sessionSecure: false
    claimMapping:
      actorId: sub
      roles: [{ path: groups, transform: prefix_strip, prefix: ROLE_ }]
`,
    });
    const report = await records.service.sync.syncFolder();
    assert.deepEqual(report?.rejected, []);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await records?.close();
    await provider?.close();
  });

  test('a deep link logs in through the provider, lands back on the page, survives a reload and logs out', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${origin}/console/schemas?from=link`);
      const oidcButton = page.getByRole('button', { name: 'Log in with Corporate SSO' });
      await oidcButton.waitFor();
      await page.getByLabel('API key').waitFor();
      await screenshot(page, 'records-oidc-login');
      assert.deepEqual(await seriousViolations(page), []);
      await page.setViewportSize({ width: 390, height: 800 });
      const narrow = await oidcButton.boundingBox();
      assert.ok(narrow && narrow.x >= 0 && narrow.x + narrow.width <= 390, 'the button fits a phone');
      await screenshot(page, 'records-oidc-login-narrow');
      await page.setViewportSize({ width: 1280, height: 800 });

      await oidcButton.click();
      await page.waitForURL(`${origin}/console/schemas?from=link`);
      await page.getByRole('heading', { name: 'Schemas' }).waitFor();
      // Declaring an AuthStrategy retires the default JWT one: ask with the browser's own cookie.
      const listing = (await (await page.request.get(`${origin}/api`)).json()) as {
        data: { displayName: string }[];
      };
      assert.ok(listing.data.length > 0);
      for (const schema of listing.data)
        await page.getByRole('cell', { name: schema.displayName }).first().waitFor();
      const cookie = (await page.context().cookies(origin)).find((c) => c.name === 'weft_session');
      assert.ok(cookie?.httpOnly, 'the session is the HttpOnly cookie, not a token in the page');

      await page.reload();
      await page.getByRole('heading', { name: 'Schemas' }).waitFor();
      await page.getByRole('button', { name: 'Log out' }).waitFor();
      await screenshot(page, 'records-oidc-schemas');
      assert.deepEqual(await seriousViolations(page), []);

      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByRole('button', { name: 'Log in with Corporate SSO' }).waitFor();
      const { rows } = await records.database.pool.query<{ revoked_at: Date | null }>(
        `SELECT revoked_at FROM records.oidc_sessions WHERE actor_id = 'olivia'`,
      );
      assert.equal(rows.length, 1);
      assert.ok(rows[0]?.revoked_at, 'logging out revokes the session on the service');
      const anonymous = await page.request.get(`${origin}/api`);
      assert.equal(anonymous.status(), 401, 'the browser holds no working session any more');
      await page.reload();
      await page.getByRole('button', { name: 'Log in with Corporate SSO' }).waitFor();

      // Start-up asks GET /api for a cookie session: without one that 401 is expected.
      assert.deepEqual(
        errors.filter((error) => !/401/.test(error)),
        [],
      );
    } finally {
      await close();
    }
  });
});
