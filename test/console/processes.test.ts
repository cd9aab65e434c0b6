import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { TestDatabase } from '../helpers/database.js';
import { launchBrowser, openPage, screenshot, seriousViolations } from '../helpers/browser.js';
import type { TestWorkflow } from '../helpers/workflow.js';
import { logInWithPassword, startConsoleWorkflow, type ConsoleWorkflow } from './workflow-console-fixture.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe('workflow console: processes and versions', () => {
  let service: ConsoleWorkflow;
  let database: TestDatabase;
  let workflow: TestWorkflow;
  let browser: Browser;
  let origin: string;
  let orgId: string;

  before(async () => {
    service = await startConsoleWorkflow({ email: 'dev@example.com', password: 'dev password' });
    ({ database, workflow, origin } = service);
    orgId = service.orgId;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  async function logIn(page: Page, path: string): Promise<void> {
    await logInWithPassword(page, `${origin}${path}`, 'dev@example.com', 'dev password');
  }

  async function paymentVersion(): Promise<{ id: string; disabled: boolean }> {
    const { rows } = await database.pool.query<{ id: string; disabled: boolean }>(
      `SELECT id, disabled FROM process_definitions WHERE process_key = 'payment' AND version = 1`,
    );
    assert.ok(rows[0], 'payment v1 is stored');
    return rows[0];
  }

  test('deploys the payment process from an uploaded file into a new group and lists it with v1', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/processes');
      await page.getByRole('heading', { name: 'Deploy a model' }).waitFor();
      await page.getByText('New process group').click();
      await page.getByLabel('Group name').fill('Payments');
      await page.getByRole('button', { name: 'Create group' }).click();
      await page.getByRole('option', { name: 'Payments' }).waitFor({ state: 'attached' });
      await page.getByLabel('BPMN file').setInputFiles(fixture('payment-diagram.bpmn'));
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Deployed Payment v1' }).waitFor();
      const versions = page.getByRole('table', { name: 'Versions of payment' });
      await versions.getByRole('link', { name: 'v1' }).waitFor();
      assert.ok(await page.getByRole('heading', { name: /Payment/ }).isVisible());
      const { rows } = await database.pool.query<{ name: string; group: string }>(
        `SELECT d.name, g.name AS group FROM process_definitions d JOIN process_groups g ON g.id = d.process_group_id
         WHERE d.process_key = 'payment'`,
      );
      assert.deepEqual(rows, [{ name: 'Payment', group: 'Payments' }]);
      await screenshot(page, 'processes-deployed');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('the version page shows the running instances as tokens and the incident on the service task; a click opens its instances', async () => {
    const token = await workflow.login('dev@example.com', 'dev password');
    const started = await workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token,
      body: { org_id: orgId, process_key: 'payment', variables: { amount: 12 } },
    });
    assert.equal(started.statusCode, 201, started.body);
    const failing = await workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token,
      body: { org_id: orgId, process_key: 'payment', variables: { amount: 13 } },
    });
    assert.equal(failing.statusCode, 201, failing.body);
    const fetched = await workflow.request({
      method: 'POST',
      url: '/api/v1/external-tasks/fetch-and-lock',
      body: { worker_id: 'w1', max_tasks: 1, topics: [{ topic_name: 'charge', lock_duration_ms: 60_000 }] },
    });
    const [task] = fetched.json() as { id: string }[];
    assert.ok(task, 'a charge task was fetched');
    const failure = await workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/failure`,
      body: { worker_id: 'w1', error_message: 'card reader down', retries: 0, retry_timeout_ms: 0 },
    });
    assert.equal(failure.statusCode, 204, failure.body);
    const version = await paymentVersion();
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/processes');
      const versions = page.getByRole('table', { name: 'Versions of payment' });
      const row = versions.getByRole('row', { name: /v1/ });
      await row.locator('.badge.incident').waitFor();
      assert.deepEqual(
        await row
          .getByRole('cell')
          .allTextContents()
          .then((cells) => cells.slice(1, 4)),
        ['1', '1', '0'],
        'running, incident and completed instances of v1',
      );
      await versions.getByRole('link', { name: 'v1' }).click();
      await page.getByRole('heading', { name: 'Payment v1' }).waitFor();
      assert.equal(new URL(page.url()).pathname, `/console/processes/payment/versions/${version.id}`);
      const badge = page.locator('.weft-overlay-tokens[data-element-id="charge"]');
      await badge.waitFor();
      assert.equal(await badge.textContent(), '2');
      assert.equal(await badge.getAttribute('title'), '2 active tokens at charge');
      const incidents = page.locator('.weft-overlay-incidents[data-element-id="charge"]');
      assert.equal(await incidents.textContent(), '1');
      assert.equal(await incidents.getAttribute('title'), '1 open incident at charge');
      await page.getByRole('link', { name: 'charge' }).waitFor();
      await screenshot(page, 'processes-version');
      assert.deepEqual(await seriousViolations(page), []);
      await page.locator('g.djs-shape[data-element-id="charge"]').click();
      await page.waitForURL(/\/console\/instances\?/);
      const target = new URL(page.url());
      assert.equal(target.searchParams.get('definition_id'), version.id);
      assert.equal(target.searchParams.get('element_id'), 'charge');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('a broken model is refused with its problems per element, outlined in its diagram', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/processes');
      await page.getByRole('heading', { name: 'Deploy a model' }).waitFor();
      await page.getByLabel('BPMN file').setInputFiles(fixture('broken-payment.bpmn'));
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'The BPMN cannot be deployed' }).waitFor();
      const problems = page.getByRole('heading', { name: 'Problems in broken-payment.bpmn' });
      await problems.waitFor();
      const chargeRow = page.getByRole('row', { name: /charge.*has no job type/ });
      await chargeRow.waitFor();
      assert.equal(await page.getByRole('row', { name: /dangling/ }).count(), 2);
      const outlined = page.locator('g.djs-shape.weft-problem[data-element-id="charge"]');
      await outlined.waitFor();
      const overlay = page.locator('.weft-overlay[data-element-id="charge"]');
      assert.match((await overlay.getAttribute('title')) ?? '', /has no job type/);
      const { rows } = await database.pool.query(
        `SELECT 1 FROM process_definitions WHERE process_key = 'payment'`,
      );
      assert.equal(rows.length, 1, 'nothing new was deployed');
      await screenshot(page, 'processes-deploy-problems');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(
        errors.filter((error) => !/400/.test(error)),
        [],
      );
    } finally {
      await close();
    }
  });

  test('disables and enables a version', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/processes');
      const versions = page.getByRole('table', { name: 'Versions of payment' });
      await versions.getByRole('button', { name: 'Disable payment v1' }).click();
      await versions.getByRole('button', { name: 'Enable payment v1' }).waitFor();
      await versions.getByText('disabled', { exact: true }).waitFor();
      assert.equal((await paymentVersion()).disabled, true);
      await screenshot(page, 'processes-disabled');
      assert.deepEqual(await seriousViolations(page), []);
      await versions.getByRole('button', { name: 'Enable payment v1' }).click();
      await versions.getByRole('button', { name: 'Disable payment v1' }).waitFor();
      assert.equal((await paymentVersion()).disabled, false);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('renames a process key', async () => {
    const { page, errors, close } = await openPage(browser, { width: 390, height: 844 });
    try {
      await logIn(page, '/console/processes');
      await page.getByRole('table', { name: 'Versions of payment' }).waitFor();
      await page.getByText('Rename', { exact: true }).click();
      await page.getByLabel('New name of payment').fill('Card payment');
      await page.getByRole('button', { name: 'Save name' }).click();
      await page.getByRole('heading', { name: /Card payment/ }).waitFor();
      const { rows } = await database.pool.query<{ name: string }>(
        `SELECT name FROM process_definitions WHERE process_key = 'payment'`,
      );
      assert.deepEqual(rows, [{ name: 'Card payment' }]);
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
      await screenshot(page, 'processes-phone');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
