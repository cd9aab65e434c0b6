import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestDatabase } from '../helpers/database.js';
import { launchBrowser, openPage, screenshot, seriousViolations } from '../helpers/browser.js';
import type { TestWorkflow } from '../helpers/workflow.js';
import { logInWithPassword, startConsoleWorkflow, type ConsoleWorkflow } from './workflow-console-fixture.js';

describe('workflow console: shell, login and deep links', () => {
  let service: ConsoleWorkflow;
  let database: TestDatabase;
  let workflow: TestWorkflow;
  let browser: Browser;
  let origin: string;

  before(async () => {
    service = await startConsoleWorkflow({ email: 'ops@example.com', password: 'ops password' });
    ({ database, workflow, origin } = service);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  test('the service serves the app at /console/ with a strict CSP, and deep links load the app', async () => {
    for (const path of ['/console/', '/console/processes', '/console/instances/0f9c']) {
      const response = await fetch(`${origin}${path}`);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /text\/html/);
      assert.match(response.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      assert.match(await response.text(), /<div id="app">/);
    }
    const html = await (await fetch(`${origin}/console/`)).text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, 'index.html loads a hashed script');
    const asset = await fetch(`${origin}${script}`, { headers: { 'accept-encoding': 'br' } });
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get('content-encoding'), 'br', 'the precompressed file is sent');
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
    const redirect = await fetch(`${origin}/console`, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get('location'), '/console/');
  });

  test('a deep link asks to log in, then shows the page it named', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${origin}/console/processes`);
      await page.getByLabel('Email').fill('ops@example.com');
      await page.getByLabel('Password').fill('wrong password');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').waitFor();
      const refusal = await workflow.request({
        method: 'POST',
        url: '/api/v1/auth/login',
        body: { email: 'ops@example.com', password: 'wrong password' },
      });
      const message = (refusal.json() as { message: string }).message;
      assert.ok(
        ((await page.getByRole('alert').textContent()) ?? '').includes(message),
        "the API's own message is shown beside the form",
      );
      await page.getByLabel('Password').fill('ops password');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Processes' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/console/processes');
      assert.equal(await page.getByLabel('Organisation').inputValue(), (await orgId()) ?? '');
      // The page polls; the API answers an unchanged list with 304 to the ETag the console sent back.
      const revalidated = await page.waitForResponse(
        (response) => response.url().includes('/api/v1/deployments') && response.status() === 304,
        { timeout: 15_000 },
      );
      assert.ok(revalidated.request().headers()['if-none-match']);
      await screenshot(page, 'workflow-processes-empty');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(
        errors.filter((error) => !/401/.test(error)),
        [],
      );
    } finally {
      await close();
    }
  });

  test('a PlatformAdmin with no membership can switch to every org', async () => {
    await workflow.createUser('root@example.com', 'root password', { platformAdmin: true });
    await database.pool.query(`INSERT INTO orgs (name, slug) VALUES ('Globex', 'globex')`);
    const { page, errors, close } = await openPage(browser);
    try {
      await logInWithPassword(page, `${origin}/console/`, 'root@example.com', 'root password');
      await page.getByRole('heading', { name: 'Processes' }).waitFor();
      const switcher = page.getByLabel('Organisation');
      const { rows } = await database.pool.query<{ id: string }>(`SELECT id FROM orgs ORDER BY name`);
      const options = switcher.locator('option');
      const offered: (string | null)[] = [];
      for (let i = 0; i < (await options.count()); i++)
        offered.push(await options.nth(i).getAttribute('value'));
      assert.deepEqual(offered.sort(), rows.map((row) => row.id).sort());
      const chosen = await switcher.inputValue();
      assert.ok(
        rows.some((row) => row.id === chosen),
        'one of them is chosen',
      );
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('fits a 390-px phone screen without horizontal scrolling', async () => {
    const { page, close } = await openPage(browser, { width: 390, height: 844 });
    try {
      await logInWithPassword(page, `${origin}/console/`, 'ops@example.com', 'ops password');
      await page.getByRole('heading', { name: 'Processes' }).waitFor();
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
    } finally {
      await close();
    }
  });

  async function orgId(): Promise<string | undefined> {
    const { rows } = await database.pool.query<{ id: string }>(`SELECT id FROM orgs WHERE slug = 'acme'`);
    return rows[0]?.id;
  }
});
