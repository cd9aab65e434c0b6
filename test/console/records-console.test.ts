import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, screenshot, seriousViolations } from '../helpers/browser.js';
import { startRecordsApp, type RecordsTestApp } from '../records/support/records-app.js';

describe('records console: shell, login and schemas', () => {
  let records: RecordsTestApp;
  let browser: Browser;
  let origin: string;

  before(async () => {
    records = await startRecordsApp();
    origin = new URL(await records.service.app.listen({ host: '127.0.0.1', port: 0 })).origin;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await records?.close();
  });

  test('the records service serves the app at /console/, deep links included', async () => {
    for (const path of ['/console/', '/console/schemas']) {
      const response = await fetch(`${origin}${path}`);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    }
  });

  test('a refused key shows the API message; a good one lists the schemas', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${origin}/console/schemas`);
      await page.getByLabel('API key').fill('ck_not-a-key');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').waitFor();
      await page.getByLabel('API key').fill(await records.token('alice', ['admin']));
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Schemas' }).waitFor();
      const listing = (await (await records.call('GET', '/api')).json()) as {
        data: { displayName: string }[];
      };
      assert.ok(listing.data.length > 0);
      for (const schema of listing.data)
        await page.getByRole('cell', { name: schema.displayName }).first().waitFor();
      await screenshot(page, 'records-schemas');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(
        errors.filter((error) => !/401|403/.test(error)),
        [],
      );
    } finally {
      await close();
    }
  });
});
