import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, screenshot, seriousViolations } from '../helpers/browser.js';
import { createEngineFixture, type EngineFixture } from '../workflow/engine/api/engine-fixture.js';

interface Started {
  id: string;
  counter: number;
}

describe('workflow console: instances and incidents', () => {
  let f: EngineFixture;
  let browser: Browser;
  let origin: string;
  let definitionId: string;
  let first: Started;

  before(async () => {
    f = await createEngineFixture();
    const deployed = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: {
        org_id: f.orgId,
        process_group_id: f.groupId,
        xml: await readFile(new URL('./fixtures/card-payment.bpmn', import.meta.url), 'utf8'),
      },
    });
    assert.equal(deployed.statusCode, 201, deployed.body);
    definitionId = (deployed.json() as { id: string }).id;
    first = await start('order-1', { amount: 42 });
    origin = new URL(await f.workflow.service.app.listen({ host: '127.0.0.1', port: 0 })).origin;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await f?.close();
  });

  async function start(businessKey: string, variables: Record<string, unknown>): Promise<Started> {
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: f.tokens.operator,
      body: { org_id: f.orgId, process_key: 'card-payment', business_key: businessKey, variables },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as Started;
  }

  /** A worker takes the instances' tasks and fails them with no retries left: incidents. */
  async function failTasks(instanceIds: string[], message: string): Promise<void> {
    const tasks = await f.fetch('console-worker', 'card-charge', 100);
    for (const instanceId of instanceIds) {
      const task = tasks.find((candidate) => candidate.process_instance_id === instanceId);
      assert.ok(task, 'the worker got the instance task');
      const failed = await f.workflow.request({
        method: 'POST',
        url: `/api/v1/external-tasks/${task.id}/failure`,
        body: { worker_id: 'console-worker', error_message: message, retries: 0, retry_timeout_ms: 0 },
      });
      assert.equal(failed.statusCode, 204, failed.body);
    }
  }

  async function logIn(page: Page, url: string): Promise<void> {
    await page.goto(`${origin}${url}`);
    await page.getByLabel('Email').fill('operator@example.com');
    await page.getByLabel('Password').fill('operator password');
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  async function instance(id: string) {
    return f.instance(id) as Promise<
      Awaited<ReturnType<EngineFixture['instance']>> & {
        incidents: { message: string }[];
        variables: Record<string, unknown>;
      }
    >;
  }

  test('the instance page draws the token on the service task, then the incident badge a worker causes', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, `/console/instances/${first.id}`);
      await page.getByRole('heading', { name: `card-payment #${first.counter}` }).waitFor();
      const charge = page.locator('.djs-element[data-element-id="charge"]');
      await charge.and(page.locator('.weft-active')).waitFor();
      assert.ok(
        await page.locator('.djs-element[data-element-id="start"].weft-taken').isVisible(),
        'the start event is on the path taken',
      );
      await page.getByRole('heading', { name: 'History' }).waitFor();
      assert.ok(await page.getByRole('list', { name: 'History' }).getByText('charge').first().isVisible());
      await screenshot(page, 'instance-token-on-service-task');
      assert.deepEqual(await seriousViolations(page), []);

      await failTasks([first.id], 'Card declined by the bank');
      // The page refreshes by itself: no reload.
      await page.locator('.weft-overlay-incidents[data-element-id="charge"]').waitFor();
      await page.getByRole('region', { name: 'Incidents' }).getByText('Card declined by the bank').waitFor();
      assert.equal(
        await page.locator('.weft-overlay-incidents').getAttribute('aria-label'),
        '1 open incident at charge',
      );
      await screenshot(page, 'instance-incident-badge');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('retrying selected incidents from the incidents page reports each instance done or failed', async () => {
    const second = await start('order-2', { amount: 7 });
    const third = await start('order-3', { amount: 8 });
    await failTasks([second.id, third.id], 'Card expired');
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/incidents');
      await page.getByRole('heading', { name: 'Incidents' }).waitFor();
      await page.getByLabel('Error message contains').fill('expired');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/error=expired/);
      await page.getByRole('checkbox', { name: new RegExp(third.id) }).waitFor();
      await page.getByRole('checkbox', { name: new RegExp(first.id) }).waitFor({ state: 'detached' });
      assert.equal(await page.getByRole('checkbox').count(), 2, 'only the expired cards are listed');
      await page.getByRole('checkbox', { name: new RegExp(second.id) }).check();
      await page.getByRole('checkbox', { name: new RegExp(third.id) }).check();
      // Someone retries the third instance meanwhile: its batch item has nothing left to retry.
      const meanwhile = await f.workflow.request({
        method: 'POST',
        url: `/api/v1/process-instances/${third.id}/retry`,
        token: f.tokens.operator,
      });
      assert.equal(meanwhile.statusCode, 200, meanwhile.body);
      await page.getByRole('button', { name: 'Retry selected (2)' }).click();
      await page.getByRole('status').filter({ hasText: '1 done, 1 failed' }).waitFor();
      const outcomes = page.getByRole('region', { name: 'Retry outcome' });
      assert.match(
        (await outcomes.getByRole('listitem').filter({ hasText: third.id }).textContent()) ?? '',
        /failed The process instance has no open incident/,
      );
      assert.match(
        (await outcomes.getByRole('listitem').filter({ hasText: second.id }).textContent()) ?? '',
        /done/,
      );
      assert.deepEqual((await instance(second.id)).incidents, []);
      assert.equal((await instance(second.id)).state, 'running');
      await screenshot(page, 'incidents-retry-outcome');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('variables are edited as JSON: invalid JSON is refused before sending, valid JSON is saved', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, `/console/instances/${first.id}`);
      await page.getByRole('button', { name: 'Edit variables' }).click();
      const editor = page.getByLabel('Variables (JSON)');
      await editor.fill('{"amount": 99,');
      await page.getByRole('button', { name: 'Save variables' }).click();
      assert.match((await page.getByRole('alert').textContent()) ?? '', /Not valid JSON/);
      assert.equal((await instance(first.id)).variables.amount, 42, 'nothing was sent');
      await screenshot(page, 'instance-variables-invalid-json');
      assert.deepEqual(await seriousViolations(page), []);
      await editor.fill('{"amount": 99, "note": "checked by ops"}');
      await page.getByRole('button', { name: 'Save variables' }).click();
      await page.getByRole('button', { name: 'Edit variables' }).waitFor();
      await page.getByText('checked by ops').waitFor();
      assert.deepEqual((await instance(first.id)).variables, { amount: 99, note: 'checked by ops' });
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('the instance list filters by the URL query, a deep link included', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/instances');
      await page.getByRole('heading', { name: 'Instances' }).waitFor();
      await page.getByText('3 instances').waitFor();
      await page.getByLabel('Business key').fill('order-2');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/business_key=order-2/);
      await page.getByText('1 instance', { exact: true }).waitFor();
      const rows = page.getByRole('table').getByRole('row');
      assert.equal(await rows.count(), 2, 'a header and one instance');
      assert.match((await rows.nth(1).textContent()) ?? '', /card-payment #2/);

      await page.getByLabel('Business key').fill('');
      await page.getByLabel('Incident', { exact: true }).selectOption('true');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/has_incident=true/);
      await rows.filter({ hasText: 'card-payment #1' }).waitFor();
      await rows.filter({ hasText: 'card-payment #2' }).waitFor({ state: 'detached' });
      assert.equal(await rows.count(), 2, 'a header and the instance with an incident');
      await screenshot(page, 'instances-filtered');
      assert.deepEqual(await seriousViolations(page), []);

      // The link a diagram gives: the instances of a version waiting at an element.
      await page.goto(`${origin}/console/instances?definition_id=${definitionId}&element_id=charge`);
      await logIn(page, `/console/instances?definition_id=${definitionId}&element_id=charge`);
      await page.getByText('3 instances').waitFor();
      assert.equal(await page.getByLabel('Waiting at element').inputValue(), 'charge');
      await page.goto(`${origin}/console/instances?element_id=end`);
      await logIn(page, '/console/instances?element_id=end');
      await page.getByText('No instance matches these filters.').waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('the list, the instance and the incidents fit a 390-px phone screen', async () => {
    const { page, errors, close } = await openPage(browser, { width: 390, height: 844 });
    try {
      await logIn(page, '/console/instances');
      for (const [path, heading] of [
        ['/console/instances', 'Instances'],
        [`/console/instances/${first.id}`, `card-payment #${first.counter}`],
        ['/console/incidents', 'Incidents'],
      ] as const) {
        await page.evaluate(
          `history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`,
        );
        await page.getByRole('heading', { name: heading, exact: true }).waitFor();
        await page.getByText('Loading…').waitFor({ state: 'detached' });
        const overflow = await page.evaluate<number>(
          'document.documentElement.scrollWidth - window.innerWidth',
        );
        assert.ok(overflow <= 0, `${path} is ${overflow} px wider than the screen`);
      }
      await screenshot(page, 'incidents-phone');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
