import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, screenshot, seriousViolations } from '../helpers/browser.js';
import { startTestWorkflow, type TestWorkflow } from '../helpers/workflow.js';

const fixture = new URL('../workflow/engine/api/fixtures/task-forms.bpmn', import.meta.url);

interface Instance {
  state: string;
  active_element_ids: string[];
  variables: Record<string, unknown>;
}

describe('workflow console: Tasklist', () => {
  let workflow: TestWorkflow;
  let browser: Browser;
  let origin: string;
  let admin: string;
  let orgId: string;

  before(async () => {
    workflow = await startTestWorkflow();
    await workflow.createUser('admin@example.com', 'admin password', { platformAdmin: true });
    admin = await workflow.login('admin@example.com', 'admin password');
    orgId = ((await api('POST', '/api/v1/orgs', { name: 'Acme', slug: 'acme' })) as { id: string }).id;
    const workerId = await workflow.createUser('worker@example.com', 'worker password');
    await api('PUT', `/api/v1/orgs/${orgId}/members/${workerId}`, { roles: ['Worker'] });
    const group = (await api('POST', `/api/v1/orgs/${orgId}/process-groups`, { name: 'Default' })) as {
      id: string;
    };
    await api('POST', '/api/v1/deployments', {
      org_id: orgId,
      process_group_id: group.id,
      xml: await readFile(fixture, 'utf8'),
    });
    origin = new URL(await workflow.service.app.listen({ host: '127.0.0.1', port: 0 })).origin;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await workflow?.close();
  });

  test('the list shows open tasks with their candidate groups; claim, filter and unclaim there', async () => {
    const instanceId = await startInstance({ order: 1 });
    const taskId = await taskAt(instanceId, 'review');
    const { page, errors, close } = await openPage(browser);
    const loaded: string[] = [];
    page.on('request', (request) => loaded.push(request.url()));
    try {
      await logIn(page, '/console/tasks');
      await page.getByRole('heading', { name: 'Tasks' }).waitFor();
      const row = rowOf(page, taskId);
      await row.getByRole('cell', { name: 'reviewers' }).waitFor();
      await row.getByRole('button', { name: 'Claim Review order' }).click();
      await row.getByRole('cell', { name: 'worker@example.com' }).waitFor();
      assert.equal(await assigneeOf(taskId), 'worker@example.com');

      await page.getByLabel('Show').selectOption({ label: 'Unassigned' });
      await row.waitFor({ state: 'detached' });
      await page.getByLabel('Show').selectOption({ label: 'Assigned to me' });
      await row.waitFor();
      await screenshot(page, 'tasks-list-mine');
      assert.deepEqual(await seriousViolations(page), []);

      await row.getByRole('button', { name: 'Unclaim Review order' }).click();
      await row.waitFor({ state: 'detached' });
      assert.equal(await assigneeOf(taskId), null);
      await page.getByLabel('Show').selectOption({ label: 'All open tasks' });
      await row.getByRole('cell', { name: 'unassigned' }).waitFor();
      assert.deepEqual(errors, []);
      assert.deepEqual(
        loaded.filter((url) => /form-js/.test(url)),
        [],
        'the list does not load form-js',
      );
    } finally {
      await close();
    }
  });

  test('the candidate group filter and "tasks I\'m a candidate user for" narrow the list, kept in the URL', async () => {
    // review: candidate group "reviewers", candidate user worker@example.com; approve: no candidates.
    const reviewId = await taskAt(await startInstance({ order: 5 }), 'review');
    const later = await startInstance({ order: 6 });
    await api('POST', `/api/v1/tasks/${await taskAt(later, 'review')}/complete`, { variables: {} });
    const approveId = await taskAt(later, 'approve');
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/tasks');
      const review = rowOf(page, reviewId);
      const approve = rowOf(page, approveId);
      await review.waitFor();
      await approve.waitFor();

      const group = page.getByLabel('Candidate group');
      await group.fill('reviewers');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await approve.waitFor({ state: 'detached' });
      await review.waitFor();
      assert.equal(new URL(page.url()).searchParams.get('candidate_group'), 'reviewers');
      assert.deepEqual(await seriousViolations(page), []);

      await group.fill('approvers, nobody');
      await group.press('Enter');
      await page.getByText('No open task matches these filters.').waitFor();
      await group.fill('approvers, reviewers');
      await group.press('Enter');
      await review.waitFor();

      // A deep link (a fresh page, so a new login) applies the filters it names.
      await logIn(page, '/console/tasks?show=candidate&candidate_group=reviewers');
      await review.waitFor();
      assert.equal(await page.getByLabel('Candidate group').inputValue(), 'reviewers');
      assert.equal(await page.getByLabel('Show').inputValue(), 'candidate');

      await page.getByLabel('Candidate group').fill('');
      await page.getByLabel('Show').selectOption({ label: 'All open tasks' });
      await approve.waitFor();
      await page.getByLabel('Show').selectOption({ label: "Tasks I'm a candidate user for" });
      await approve.waitFor({ state: 'detached' });
      await review.waitFor();
      const url = new URL(page.url());
      assert.equal(url.searchParams.get('show'), 'candidate');
      assert.equal(url.searchParams.get('candidate_group'), null);
      await screenshot(page, 'tasks-list-candidate');
      assert.deepEqual(await seriousViolations(page), []);

      await review.getByRole('link', { name: 'Review order' }).click();
      await page.getByRole('heading', { name: 'Review order' }).waitFor();
      const facts = page.locator('dl.task-facts');
      await facts.getByText('Candidate users').waitFor();
      assert.equal(
        await facts.locator('dt:text-is("Candidate users") + dd').innerText(),
        'worker@example.com',
      );
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test("a refused completion shows the API's message; after a claim the JSON form completes the task", async () => {
    const instanceId = await startInstance({ order: 2 });
    const taskId = await taskAt(instanceId, 'review');
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, `/console/tasks/${taskId}`);
      await page.getByRole('heading', { name: 'Review order' }).waitFor();
      const variables = page.getByLabel('Variables (JSON object)');
      assert.deepEqual(JSON.parse(await variables.inputValue()), { order: 2 });

      await page.getByRole('button', { name: 'Complete task' }).click();
      const refusal = await workflow.request({
        method: 'POST',
        url: `/api/v1/tasks/${taskId}/complete`,
        token: await workflow.login('worker@example.com', 'worker password'),
        body: { variables: { order: 2 } },
      });
      assert.equal(refusal.statusCode, 403);
      const message = (refusal.json() as { message: string }).message;
      await page.getByRole('alert').filter({ hasText: message }).waitFor();
      await screenshot(page, 'tasks-completion-refused');

      await variables.fill('[1, 2]');
      await page.getByRole('button', { name: 'Complete task' }).click();
      await page.getByRole('alert').filter({ hasText: 'must be a JSON object' }).waitFor();

      await page.getByRole('button', { name: 'Claim Review order' }).click();
      await page.getByRole('button', { name: 'Unclaim Review order' }).waitFor();
      assert.equal(await assigneeOf(taskId), 'worker@example.com');
      await variables.fill('{"order": 2, "reviewed": true, "note": "looks fine"}');
      assert.deepEqual(await seriousViolations(page), []);
      await page.getByRole('button', { name: 'Complete task' }).click();
      await page.getByRole('status').filter({ hasText: 'The task is completed' }).waitFor();

      const instance = await instanceOf(instanceId);
      assert.deepEqual(instance.active_element_ids, ['approve']);
      assert.equal(instance.variables.reviewed, true);
      assert.equal(instance.variables.note, 'looks fine');
      assert.deepEqual(
        errors.filter((error) => !/403/.test(error)),
        [],
        'only the refused completion logs an error',
      );
    } finally {
      await close();
    }
  });

  test('a task with an embedded Camunda form completes through form-js with the form data', async () => {
    const instanceId = await startInstance({ order: 3 });
    await api('POST', `/api/v1/tasks/${await taskAt(instanceId, 'review')}/complete`, { variables: {} });
    const taskId = await taskAt(instanceId, 'approve');
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, `/console/tasks/${taskId}`);
      await page.getByRole('heading', { name: 'Approve order' }).waitFor();
      const approver = page.getByLabel('Approver name');
      await approver.waitFor();
      await page.getByRole('button', { name: 'Complete task' }).click();
      await page.getByRole('alert').filter({ hasText: 'need a value' }).waitFor();
      assert.deepEqual((await instanceOf(instanceId)).active_element_ids, ['approve'], 'nothing sent');

      await approver.fill('Ada');
      await page.getByRole('alert').filter({ hasText: 'need a value' }).waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Claim Approve order' }).click();
      await page.getByRole('button', { name: 'Unclaim Approve order' }).waitFor();
      assert.equal(await approver.inputValue(), 'Ada', 'the claim keeps what was typed');
      await page.getByLabel('Approved amount').fill('120');
      await page.getByLabel('Approved', { exact: true }).check();
      await screenshot(page, 'tasks-form-js');
      assert.deepEqual(await seriousViolations(page), []);
      await page.getByRole('button', { name: 'Complete task' }).click();
      await page.getByRole('status').filter({ hasText: 'The task is completed' }).waitFor();

      const instance = await instanceOf(instanceId);
      assert.equal(instance.state, 'completed');
      assert.equal(instance.variables.approver, 'Ada');
      assert.equal(instance.variables.amount, 120);
      assert.equal(instance.variables.approved, true);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('the task page with its form fits a 390-px phone screen', async () => {
    const instanceId = await startInstance({ order: 4 });
    await api('POST', `/api/v1/tasks/${await taskAt(instanceId, 'review')}/complete`, { variables: {} });
    const taskId = await taskAt(instanceId, 'approve');
    const { page, close } = await openPage(browser, { width: 390, height: 844 });
    try {
      await logIn(page, `/console/tasks/${taskId}`);
      await page.getByLabel('Approver name').waitFor();
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
      await page.goto(`${origin}/console/tasks`);
      await logIn(page, '/console/tasks');
      await rowOf(page, taskId).waitFor();
      const listOverflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      assert.ok(listOverflow <= 0, `the list is ${listOverflow} px wider than the screen`);
      await screenshot(page, 'tasks-list-phone');
    } finally {
      await close();
    }
  });

  async function logIn(page: Page, path: string): Promise<void> {
    await page.goto(`${origin}${path}`);
    await page.getByLabel('Email').fill('worker@example.com');
    await page.getByLabel('Password').fill('worker password');
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  function rowOf(page: Page, taskId: string) {
    return page.getByRole('row').filter({ has: page.locator(`a[href="/console/tasks/${taskId}"]`) });
  }

  async function api(method: string, url: string, body?: unknown): Promise<unknown> {
    const response = await workflow.request({ method, url, token: admin, body });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.body === '' ? undefined : (response.json() as unknown);
  }

  async function startInstance(variables: Record<string, unknown>): Promise<string> {
    const started = (await api('POST', '/api/v1/process-instances', {
      org_id: orgId,
      process_key: 'taskForms',
      variables,
    })) as { id: string };
    return started.id;
  }

  async function taskAt(instanceId: string, activityId: string): Promise<string> {
    const tasks = (await api('GET', `/api/v1/tasks?org_id=${orgId}&process_instance_id=${instanceId}`)) as {
      id: string;
      activity_id: string;
    }[];
    const task = tasks.find((candidate) => candidate.activity_id === activityId);
    assert.ok(task, `an open task at ${activityId}`);
    return task.id;
  }

  async function assigneeOf(taskId: string): Promise<string | null> {
    return ((await api('GET', `/api/v1/tasks/${taskId}`)) as { assignee: string | null }).assignee;
  }

  function instanceOf(instanceId: string): Promise<Instance> {
    return api('GET', `/api/v1/process-instances/${instanceId}`) as Promise<Instance>;
  }
});
