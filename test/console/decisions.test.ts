import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { TestDatabase } from '../helpers/database.js';
import { launchBrowser, openPage, screenshot, seriousViolations } from '../helpers/browser.js';
import type { TestWorkflow } from '../helpers/workflow.js';
import { logInWithPassword, startConsoleWorkflow, type ConsoleWorkflow } from './workflow-console-fixture.js';

const discountDmn = readFile(
  new URL('../workflow/engine/api/fixtures/discount.dmn', import.meta.url),
  'utf8',
);

const orderByMessage = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="Defs" targetNamespace="urn:weft:test">
  <bpmn:message id="received" name="order-received" />
  <bpmn:process id="orders" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:messageEventDefinition messageRef="received" /></bpmn:startEvent>
    <bpmn:userTask id="handle" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="handle" />
  </bpmn:process>
</bpmn:definitions>`;

const greetingWithDiagram = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" xmlns:dmndi="https://www.omg.org/spec/DMN/20191111/DMNDI/"
  xmlns:dc="http://www.omg.org/spec/DMN/20180521/DC/" id="greetings" name="Greetings" namespace="urn:weft:test">
  <inputData id="in_name" name="name"><variable name="name" typeRef="string" /></inputData>
  <decision id="greeting" name="Greeting">
    <informationRequirement id="ir1"><requiredInput href="#in_name" /></informationRequirement>
    <literalExpression id="text"><text>"Hello " + name</text></literalExpression>
  </decision>
  <dmndi:DMNDI>
    <dmndi:DMNDiagram id="diagram">
      <dmndi:DMNShape id="greeting_shape" dmnElementRef="greeting"><dc:Bounds x="100" y="80" width="180" height="80" /></dmndi:DMNShape>
      <dmndi:DMNShape id="in_name_shape" dmnElementRef="in_name"><dc:Bounds x="128" y="250" width="125" height="45" /></dmndi:DMNShape>
    </dmndi:DMNDiagram>
  </dmndi:DMNDI>
</definitions>`;

describe('workflow console: decisions, messages and signals, script playground', () => {
  let service: ConsoleWorkflow;
  let database: TestDatabase;
  let workflow: TestWorkflow;
  let browser: Browser;
  let origin: string;
  let orgId: string;
  let token: string;

  before(async () => {
    service = await startConsoleWorkflow({ email: 'dev@example.com', password: 'dev password' });
    ({ database, workflow, origin } = service);
    orgId = service.orgId;
    token = await workflow.login('dev@example.com', 'dev password');
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  async function api(method: string, url: string, body: unknown, headers: Record<string, string> = {}) {
    const response = await workflow.request({ method, url, token, body, headers });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json() as Record<string, unknown>;
  }

  async function logIn(page: Page, path: string): Promise<void> {
    await logInWithPassword(page, `${origin}${path}`, 'dev@example.com', 'dev password');
  }

  test('a deployed decision is listed, drawn by dmn-js, and evaluates with its matched rule marked', async () => {
    await api('POST', '/api/v1/decisions', { xml: await discountDmn }, { 'x-org-id': orgId });
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/decisions');
      await page.getByRole('heading', { name: 'Decisions' }).waitFor();
      await page.getByRole('link', { name: 'v1 of discount' }).waitFor();
      await screenshot(page, 'decisions-list');
      assert.deepEqual(await seriousViolations(page), []);

      await page.getByRole('link', { name: 'discount', exact: true }).click();
      await page.getByRole('heading', { name: 'Decision Discount' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/console/decisions/discount');
      const diagram = page.getByRole('region', { name: 'DMN of decision Discount' });
      await diagram.locator('.dmn-decision-table-container tbody tr').nth(1).waitFor();
      assert.equal(await diagram.locator('tbody tr').count(), 2, 'both rules of the table are drawn');
      assert.equal(await diagram.locator('.bjs-powered-by').count(), 1, 'the bpmn.io watermark stays');

      await page.getByLabel('Variables (JSON object)').fill('{"customer": "gold"}');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      const result = page.getByLabel('Result', { exact: true });
      await result.waitFor();
      const expected = await workflow.request({
        method: 'POST',
        url: '/api/v1/decisions/discount/evaluate',
        token,
        headers: { 'x-org-id': orgId },
        body: { variables: { customer: 'gold' } },
      });
      const answer = expected.json() as { result: unknown; matched_rules: { rule_id: string }[] };
      assert.equal((await result.textContent())?.trim(), JSON.stringify(answer.result, null, 2));
      const matched = page.getByRole('table', { name: 'Matched rules' });
      assert.match((await matched.locator('tbody').textContent()) ?? '', /#1\s*gold/);
      assert.deepEqual(
        answer.matched_rules.map((rule) => rule.rule_id),
        ['gold'],
      );
      await diagram.locator('tbody tr.weft-matched-rule').waitFor();
      assert.equal(await diagram.locator('tbody tr').first().getAttribute('class'), 'weft-matched-rule');
      await screenshot(page, 'decision-evaluated');
      assert.deepEqual(await seriousViolations(page), []);

      await page.getByLabel('Variables (JSON object)').fill('{}');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      const refusal = page.getByRole('alert');
      await refusal.waitFor();
      assert.match((await refusal.textContent()) ?? '', /customer|input/i, "the API's refusal is shown");
      assert.deepEqual(
        errors.filter((error) => !/\b422\b/.test(error)),
        [],
      );
    } finally {
      await close();
    }
  });

  test('a file with a requirements diagram opens on its decision and switches to the diagram', async () => {
    await api('POST', '/api/v1/decisions', { xml: greetingWithDiagram }, { 'x-org-id': orgId });
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/decisions/greeting');
      await page.getByRole('heading', { name: 'Decision Greeting' }).waitFor();
      const diagram = page.getByRole('region', { name: 'DMN of decision Greeting' });
      await diagram.locator('.dmn-literal-expression-container').waitFor();
      const views = page.getByRole('group', { name: 'View' });
      await views.getByRole('button', { name: 'Literal expression', pressed: true }).waitFor();
      await views.getByRole('button', { name: 'Requirements diagram' }).click();
      await diagram.locator('.djs-element[data-element-id="greeting"]').waitFor();
      await diagram.locator('.djs-element[data-element-id="in_name"]').waitFor();
      assert.equal(await diagram.locator('.bjs-powered-by').count(), 1, 'the bpmn.io watermark stays');
      await screenshot(page, 'decision-requirements-diagram');
      assert.deepEqual(await seriousViolations(page), []);
      await diagram.locator('.drill-down-overlay').click();
      await diagram.locator('.dmn-literal-expression-container').waitFor();
      // The diagram's own drill-down is reflected in the view switch.
      await views.getByRole('button', { name: 'Literal expression', pressed: true }).waitFor();

      await page.getByLabel('Variables (JSON object)').fill('{"name": "Ann"}');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      const result = page.getByLabel('Result', { exact: true });
      await result.waitFor();
      assert.equal((await result.textContent())?.trim(), '"Hello Ann"');
      await page.getByText('No rule matched.').waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('a message sent from the console starts an instance, shown as a link to it', async () => {
    const group = await api('POST', `/api/v1/orgs/${orgId}/process-groups`, { name: 'default' });
    await api('POST', '/api/v1/deployments', {
      org_id: orgId,
      process_group_id: group.id,
      xml: orderByMessage,
    });
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/events');
      await page.getByRole('heading', { name: 'Messages and signals' }).waitFor();
      await page.getByLabel('Message name').fill('order-received');
      await page.getByLabel('Message variables (JSON object)').fill('{"order": 7}');
      await page.getByRole('button', { name: 'Send message' }).click();
      const started = page.getByRole('list', { name: 'Started instances' });
      await started.waitFor();
      const link = started.getByRole('link');
      assert.equal(await link.count(), 1);
      const href = (await link.getAttribute('href')) ?? '';
      const instanceId = href.replace('/console/instances/', '');
      const { rows } = await database.pool.query<{ variables: Record<string, unknown> }>(
        'SELECT variables FROM process_instances WHERE id = $1',
        [instanceId],
      );
      assert.equal(rows.length, 1, 'the link names the started instance');
      assert.equal(rows[0]?.variables.order, 7);
      await screenshot(page, 'events-message-started');
      assert.deepEqual(await seriousViolations(page), []);

      await page.getByLabel('Signal name').fill('nobody-listens');
      await page.getByRole('button', { name: 'Broadcast signal' }).click();
      await page.getByRole('heading', { name: 'Signal broadcast' }).waitFor();

      await page.getByLabel('Message name').fill('nobody-waits');
      await page.getByRole('button', { name: 'Send message' }).click();
      await page.getByRole('alert').waitFor();
      assert.deepEqual(
        errors.filter((error) => !/\b4\d\d\b/.test(error)),
        [],
      );
    } finally {
      await close();
    }
  });

  test('the script playground runs jq then FEEL, showing each output, and a broken step with its position', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/scripts');
      await page.getByRole('heading', { name: 'Script playground' }).waitFor();
      const first = page.getByRole('group', { name: 'Step 1' });
      const second = page.getByRole('group', { name: 'Step 2' });
      await first.getByLabel('Expression').fill('{total: (.items | map(.price) | add)}');
      await second.getByLabel('Language').selectOption('feel');
      await second.getByLabel('Expression').fill('total * 2');
      await second.getByLabel('Result variable').fill('doubled');
      await page.getByLabel('Input variables (JSON object)').fill('{"items": [{"price": 2}, {"price": 3}]}');
      await page.getByRole('button', { name: 'Run', exact: true }).click();

      const totalOutput = page.getByLabel('Output of total');
      await totalOutput.waitFor();
      assert.deepEqual(JSON.parse((await totalOutput.textContent()) ?? ''), { total: 5 });
      assert.equal((await page.getByLabel('Output of gross').textContent())?.trim(), '10');
      assert.match((await page.getByRole('article', { name: 'Step total' }).textContent()) ?? '', /\d ms/);
      assert.deepEqual(JSON.parse((await page.getByLabel('Variables after the run').textContent()) ?? ''), {
        items: [{ price: 2 }, { price: 3 }],
        total: 5,
        doubled: 10,
      });
      await screenshot(page, 'scripts-ran');
      assert.deepEqual(await seriousViolations(page), []);

      await second.getByLabel('Expression').fill('total *');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      const failed = page.getByRole('article', { name: 'Step gross' }).getByRole('alert');
      await failed.waitFor();
      assert.match((await failed.textContent()) ?? '', /Error at line 1, column \d+/);
      assert.equal(await page.getByLabel('Output of total').count(), 1, 'the first step still shows');
      await screenshot(page, 'scripts-broken-step');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('the decision, events and scripts pages fit a 390-px phone screen without horizontal scrolling', async () => {
    const { page, errors, close } = await openPage(browser, { width: 390, height: 844 });
    try {
      await logIn(page, '/console/decisions/discount');
      await page.getByRole('heading', { name: 'Decision Discount' }).waitFor();
      await page.locator('.dmn-decision-table-container').waitFor();
      const overflow = () =>
        page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      assert.ok((await overflow()) <= 0, `the decision page is ${await overflow()} px too wide`);
      const nav = page.getByRole('navigation', { name: 'Main' });
      for (const [link, heading] of [
        ['Messages and signals', 'Messages and signals'],
        ['Scripts', 'Script playground'],
      ] as const) {
        await nav.getByRole('link', { name: link }).click();
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        assert.ok((await overflow()) <= 0, `${heading} is ${await overflow()} px too wide`);
      }
      await screenshot(page, 'scripts-phone');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
