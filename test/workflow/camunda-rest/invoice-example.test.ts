import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BasicAuthInterceptor, Client, Variables } from 'camunda-external-task-client-js';
import { basic, createCamundaFixture, type CamundaFixture } from './camunda-fixture.js';
import { fixtureFile, modelerDeploymentRequest } from './modeler-deployment.js';

/*
 * Camunda 7's invoice example (fixtures/invoice/, see its README.md), deployed the way Camunda
 * Modeler deploys and run end to end through /engine-rest only, as Camunda's own InvoiceTestCase
 * (examples/invoice/src/test/java/…/InvoiceTestCase.java) runs it: the DMN decision with
 * collectEntries picks the approver groups, JUEL conditions route the gateways, JUEL dateTime()
 * sets due dates, the JavaScript task listeners assign approveInvoice, the call activity runs the
 * clarification process, and Camunda's JavaScript client is the worker of archiveInvoice.
 */

interface Typed {
  value: unknown;
  type: string;
  valueInfo?: Record<string, unknown>;
}

interface Task {
  id: string;
  name: string | null;
  assignee: string | null;
  created: string;
  due: string | null;
  processInstanceId: string;
  taskDefinitionKey: string;
  formKey: string | null;
  tenantId: string;
}

interface HistoricInstance {
  id: string;
  state: string;
  startTime: string;
  endTime: string | null;
  businessKey: string | null;
  superProcessInstanceId: string | null;
  processDefinitionKey: string;
}

const week = 7 * 24 * 60 * 60 * 1000;
const day = 24 * 60 * 60 * 1000;

/** A date of Camunda's format (`2024-05-06T07:08:09.010+0000`) in milliseconds. */
function camundaTime(text: string | null): number {
  assert.ok(text !== null, 'a date');
  assert.match(text, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
  return Date.parse(text.replace(/\+0000$/, 'Z'));
}

async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("Camunda 7's invoice example", () => {
  let fixture: CamundaFixture;
  let baseUrl: string;
  // Basic credentials (email and password), as Camunda's clients send them.
  const people: Record<'developer' | 'clerk' | 'mary' | 'peter' | 'accountant' | 'assistant', string> = {
    developer: '',
    clerk: '',
    mary: '',
    peter: '',
    accountant: '',
    assistant: '',
  };
  const roles: Record<keyof typeof people, string> = {
    developer: 'Developer', // deploys
    clerk: 'Operator', // starts invoices
    mary: 'Worker', // approver
    peter: 'Worker', // another approver
    accountant: 'Worker', // prepares bank transfers
    assistant: 'Worker', // clarifies invoices
  };
  const email = (name: keyof typeof people) => `${name}@example.com`;

  before(async () => {
    fixture = await createCamundaFixture();
    const address = await fixture.workflow.service.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `${address}/engine-rest`;
    for (const name of Object.keys(people) as (keyof typeof people)[]) {
      const password = `${name} password`;
      const userId = await fixture.workflow.createUser(email(name), password);
      const response = await fixture.workflow.request({
        method: 'PUT',
        url: `/api/v1/orgs/${fixture.orgs.acme}/members/${userId}`,
        token: fixture.admin,
        body: { roles: [roles[name]] },
      });
      assert.ok(response.statusCode < 300, response.body);
      people[name] = basic(email(name), password);
    }
  });
  after(() => fixture.close());

  const rest = async (
    as: keyof typeof people | 'worker',
    method: string,
    path: string,
    body?: unknown,
    expectedStatus = method === 'GET' ? 200 : 204,
  ): Promise<unknown> => {
    const authorization =
      as === 'worker' ? `Bearer ${fixture.users.worker.jwt}` : (people[as] satisfies string);
    const response = await fixture.camunda({ method, url: `/engine-rest${path}`, body, authorization });
    assert.equal(response.statusCode, expectedStatus, `${method} ${path}: ${response.body}`);
    return response.body === '' ? null : (response.json() as unknown);
  };
  const tasksOf = async (instanceId: string, query = ''): Promise<Task[]> =>
    (await rest('mary', 'GET', `/task?processInstanceId=${instanceId}${query}`)) as Task[];
  const onlyTask = async (instanceId: string, key: string): Promise<Task> => {
    const tasks = await tasksOf(instanceId);
    assert.deepEqual(
      tasks.map((task) => task.taskDefinitionKey),
      [key],
    );
    return tasks[0]!;
  };
  const historic = async (instanceId: string): Promise<HistoricInstance> => {
    const list = (await rest(
      'clerk',
      'GET',
      `/history/process-instance?processInstanceId=${instanceId}`,
    )) as HistoricInstance[];
    assert.equal(list.length, 1);
    return list[0]!;
  };
  const variable = async (instanceId: string, name: string): Promise<Typed> =>
    (await rest('clerk', 'GET', `/process-instance/${instanceId}/variables/${name}`)) as Typed;
  /** The ids of the elements an instance went through, from weft's own history. */
  const visited = async (instanceId: string): Promise<string[]> => {
    const response = await fixture.workflow.request({
      method: 'GET',
      url: `/api/v1/process-instances/${instanceId}/history`,
      token: fixture.admin,
    });
    assert.equal(response.statusCode, 200, response.body);
    return [...new Set((response.json() as { element_id: string }[]).map((entry) => entry.element_id))];
  };

  // The variables of Camunda's InvoiceTestCase, typed as its Java API types them (amount is a
  // double). Its invoiceDocument, a File variable with invoice.pdf, is left out: weft has no File
  // variables (docs/workflow/camunda7.md, Variables). The approver is who the create listener
  // assigns approveInvoice to (Camunda's demo data sets it the same way).
  const startVariables = (invoiceNumber: string, approver: keyof typeof people) => ({
    creditor: { value: 'Great Pizza for Everyone Inc.', type: 'String' },
    amount: { value: 300.0, type: 'Double' },
    invoiceCategory: { value: 'Travel Expenses', type: 'String' },
    invoiceNumber: { value: invoiceNumber, type: 'String' },
    approver: { value: email(approver), type: 'String' },
  });
  const start = async (invoiceNumber: string, approver: keyof typeof people) =>
    (await rest(
      'clerk',
      'POST',
      '/process-definition/key/invoice/start',
      {
        variables: startVariables(invoiceNumber, approver),
        businessKey: invoiceNumber,
        withVariablesInReturn: true,
      },
      200,
    )) as {
      id: string;
      definitionId: string;
      ended: boolean;
      tenantId: string;
      variables: Record<string, Typed>;
    };
  const complete = (as: keyof typeof people, task: Task, variables: Record<string, Typed> = {}) =>
    rest(as, 'POST', `/task/${task.id}/complete`, { variables });
  // An unassigned task is claimed first, as Camunda's Tasklist does: in weft only its assignee or an
  // Operator completes a task (docs/workflow/camunda7.md, Tasks).
  const claimAndComplete = async (
    as: keyof typeof people,
    task: Task,
    variables: Record<string, Typed> = {},
  ) => {
    assert.equal(task.assignee, null);
    await rest(as, 'POST', `/task/${task.id}/claim`, { userId: email(as) });
    await complete(as, task, variables);
  };

  /** Runs archiveInvoice with Camunda's JavaScript client until the instance has ended. */
  const archiveWithCamundaClient = async (instanceId: string) => {
    const client = new Client({
      baseUrl,
      workerId: 'invoice-archiver',
      interval: 50,
      asyncResponseTimeout: 1_000,
      autoPoll: false,
      interceptors: new BasicAuthInterceptor({
        username: fixture.users.worker.email,
        password: fixture.users.worker.password,
      }),
    });
    const clientErrors: unknown[] = [];
    for (const event of ['poll:error', 'complete:error'])
      client.on(event, (error) => clientErrors.push([event, error]));
    const archived: { activityId: string; businessKey: string | null; invoiceNumber: unknown }[] = [];
    // Only this instance's task: a client of an earlier test may still have a long poll in flight
    // after its stop, and would otherwise lock this one.
    const { businessKey } = await historic(instanceId);
    client.subscribe('archive-invoice', { businessKey }, async ({ task, taskService }) => {
      archived.push({
        activityId: task.activityId,
        businessKey: task.businessKey,
        invoiceNumber: task.variables.get('invoiceNumber'),
      });
      await taskService.complete(task, new Variables().set('archived', true));
    });
    client.start();
    try {
      return await waitUntil('the invoice to be archived', async () => {
        const instance = await historic(instanceId);
        return instance.state === 'ACTIVE' ? undefined : { instance, archived, clientErrors };
      });
    } finally {
      client.stop();
    }
  };

  test('deploys the three files in one Modeler-style request', async () => {
    const [invoice, decisions, clarification] = await Promise.all([
      fixtureFile('invoice/invoice.v2.bpmn'),
      fixtureFile('invoice/invoiceBusinessDecisions.dmn'),
      fixtureFile('invoice/invoice-clarification.bpmn'),
    ]);
    const name = (file: { name: string; contents: string }) => ({
      ...file,
      name: file.name.replace('invoice/', ''),
    });
    const { payload, headers } = await modelerDeploymentRequest(name(invoice), {
      name: 'invoice',
      attachments: [name(decisions), name(clarification)],
    });
    const response = await fixture.camunda({
      method: 'POST',
      url: '/engine-rest/deployment/create',
      body: payload,
      headers,
      authorization: people.developer,
    });
    assert.equal(response.statusCode, 200, response.body);
    const deployment = response.json() as {
      id: string;
      name: string;
      tenantId: string;
      deployedProcessDefinitions: Record<
        string,
        { key: string; name: string; version: number; resource: string }
      >;
      deployedDecisionDefinitions: Record<
        string,
        { key: string; name: string; version: number; resource: string }
      >;
    };
    assert.equal(deployment.name, 'invoice');
    assert.equal(deployment.tenantId, 'acme');
    const summary = (
      definitions: Record<string, { key: string; name: string; version: number; resource: string }>,
    ) =>
      Object.values(definitions)
        .map(({ key, name, version, resource }) => ({ key, name, version, resource }))
        .sort((a, b) => a.key.localeCompare(b.key));
    assert.deepEqual(summary(deployment.deployedProcessDefinitions), [
      { key: 'invoice', name: 'Invoice Receipt', version: 1, resource: 'invoice.v2.bpmn' },
      {
        key: 'invoice-clarification',
        name: 'Invoice Clarification',
        version: 1,
        resource: 'invoice-clarification.bpmn',
      },
    ]);
    assert.deepEqual(summary(deployment.deployedDecisionDefinitions), [
      {
        key: 'invoice-assign-approver',
        name: 'Assign Approver Group',
        version: 1,
        resource: 'invoiceBusinessDecisions.dmn',
      },
      {
        key: 'invoiceClassification',
        name: 'Invoice Classification',
        version: 1,
        resource: 'invoiceBusinessDecisions.dmn',
      },
    ]);
    // And it is listed.
    const listed = (await rest('developer', 'GET', `/deployment?id=${deployment.id}`)) as { id: string }[];
    assert.deepEqual(
      listed.map((entry) => entry.id),
      [deployment.id],
    );
  });

  test('happy path: approved, bank transfer prepared, archived by the JavaScript client', async () => {
    const started = await start('GPFE-23232323', 'mary');
    assert.equal(started.ended, false);
    assert.equal(started.tenantId, 'acme');
    // The business rule task ran invoice-assign-approver (which requires invoiceClassification:
    // 300 of Travel Expenses is a day-to-day expense) and kept its collectEntries result.
    assert.deepEqual(started.variables.approverGroups, {
      value: JSON.stringify(['accounting', 'sales']),
      type: 'Json',
      valueInfo: {},
    });
    const startTime = camundaTime((await historic(started.id)).startTime);

    const approve = await onlyTask(started.id, 'approveInvoice');
    assert.equal(approve.name, 'Approve Invoice');
    assert.equal(approve.formKey, 'embedded:app:forms/approve-invoice.html');
    // The create listener (JavaScript) assigned it to the approver variable.
    assert.equal(approve.assignee, email('mary'));
    assert.deepEqual(await variable(started.id, 'approver'), {
      value: email('mary'),
      type: 'String',
      valueInfo: {},
    });
    // ${dateTime().plusWeeks(1).toDate()}: one week after the instance started.
    const due = camundaTime(approve.due) - startTime;
    assert.ok(due >= week && due < week + 60_000, `approveInvoice is due ${due} ms after the start`);
    // Its candidate groups are the decision's result, ${approverGroups}.
    await assertCandidateGroups(started.id, 'approveInvoice', ['accounting', 'sales']);

    await complete('mary', approve, { approved: { value: true, type: 'Boolean' } });

    // ${approved}: on to the accountant.
    const prepare = await onlyTask(started.id, 'prepareBankTransfer');
    await assertCandidateGroups(started.id, 'prepareBankTransfer', ['accounting']);
    const prepareDue = camundaTime(prepare.due) - startTime;
    assert.ok(
      prepareDue >= week && prepareDue < week + 60_000,
      `prepareBankTransfer is due ${prepareDue} ms after the start`,
    );
    await claimAndComplete('accountant', prepare);
    assert.deepEqual(await tasksOf(started.id), []);

    // archiveInvoice (asynchronous, now an external task) is done by Camunda's JavaScript client.
    const { instance, archived, clientErrors } = await archiveWithCamundaClient(started.id);
    assert.deepEqual(clientErrors, []);
    assert.deepEqual(archived, [
      { activityId: 'archiveInvoice', businessKey: 'GPFE-23232323', invoiceNumber: 'GPFE-23232323' },
    ]);
    assert.equal(instance.state, 'COMPLETED');
    assert.ok(instance.endTime !== null);
    const path = await visited(started.id);
    assert.ok(path.includes('invoiceProcessed'), path.join(', '));
    assert.ok(!path.includes('invoiceClarification'), path.join(', '));
  });

  test('not approved: clarified, reassigned by a claim, approved, completed', async () => {
    const started = await start('GPFE-42', 'mary');
    const first = await onlyTask(started.id, 'approveInvoice');
    assert.equal(first.assignee, email('mary'));
    await complete('mary', first, { approved: { value: false, type: 'Boolean' } });

    // ${!approved}: the call activity starts invoice-clarification with the camunda:in variables.
    const called = (await rest(
      'clerk',
      'GET',
      `/history/process-instance?superProcessInstanceId=${started.id}`,
    )) as HistoricInstance[];
    assert.equal(called.length, 1);
    const sub = called[0]!;
    assert.equal(sub.processDefinitionKey, 'invoice-clarification');
    assert.equal(sub.state, 'ACTIVE');
    const subVariables = (await rest('clerk', 'GET', `/process-instance/${sub.id}/variables`)) as Record<
      string,
      Typed
    >;
    assert.deepEqual(
      Object.fromEntries(Object.entries(subVariables).map(([name, typed]) => [name, typed.value])),
      {
        creditor: 'Great Pizza for Everyone Inc.',
        amount: 300,
        invoiceCategory: 'Travel Expenses',
        invoiceNumber: 'GPFE-42',
        invoiceDocument: null,
      },
    );
    assert.deepEqual(await tasksOf(started.id), []);
    const clarify = await onlyTask(sub.id, 'clarify');
    await assertCandidateGroups(sub.id, 'clarify', ['team-assistant']);
    const clarifyDue = camundaTime(clarify.due) - camundaTime(sub.startTime);
    assert.ok(clarifyDue >= 2 * day && clarifyDue < 2 * day + 60_000);
    await claimAndComplete('assistant', clarify, {
      clarified: { value: true, type: 'Boolean' },
      reviewComment: { value: 'the creditor confirmed the amount', type: 'String' },
    });
    assert.equal((await historic(sub.id)).state, 'COMPLETED');

    // The camunda:out mappings brought the result back; ${clarified}: approveInvoice again, and
    // the create listener assigned it to the approver once more.
    assert.equal((await variable(started.id, 'clarified')).value, true);
    assert.equal((await variable(started.id, 'reviewComment')).value, 'the creditor confirmed the amount');
    const again = await onlyTask(started.id, 'approveInvoice');
    assert.notEqual(again.id, first.id);
    assert.equal(again.assignee, email('mary'));

    // Mary hands it back and Peter claims it: the assignment listener records him as the approver.
    await rest('mary', 'POST', `/task/${again.id}/unclaim`);
    await rest('peter', 'POST', `/task/${again.id}/claim`, { userId: email('peter') });
    assert.equal((await onlyTask(started.id, 'approveInvoice')).assignee, email('peter'));
    assert.equal((await variable(started.id, 'approver')).value, email('peter'));

    await complete('peter', again, { approved: { value: true, type: 'Boolean' } });
    await claimAndComplete('accountant', await onlyTask(started.id, 'prepareBankTransfer'));
    const { instance, archived, clientErrors } = await archiveWithCamundaClient(started.id);
    assert.deepEqual(clientErrors, []);
    assert.equal(archived.length, 1);
    assert.equal(instance.state, 'COMPLETED');
    const path = await visited(started.id);
    for (const element of ['invoiceClarification', 'clarificationSuccessful_gw', 'invoiceProcessed'])
      assert.ok(path.includes(element), `${element} in ${path.join(', ')}`);
  });

  test('not approved and not clarified: ends at invoiceNotProcessed', async () => {
    const started = await start('GPFE-43', 'mary');
    await complete('mary', await onlyTask(started.id, 'approveInvoice'), {
      approved: { value: false, type: 'Boolean' },
    });
    const called = (await rest(
      'clerk',
      'GET',
      `/history/process-instance?superProcessInstanceId=${started.id}`,
    )) as HistoricInstance[];
    assert.equal(called.length, 1);
    await claimAndComplete('assistant', await onlyTask(called[0]!.id, 'clarify'), {
      clarified: { value: false, type: 'Boolean' },
    });

    // ${!clarified}: the instance ends without a bank transfer or an archive.
    const instance = await historic(started.id);
    assert.equal(instance.state, 'COMPLETED');
    const path = await visited(started.id);
    assert.ok(path.includes('invoiceNotProcessed'), path.join(', '));
    for (const element of ['prepareBankTransfer', 'archiveInvoice', 'invoiceProcessed'])
      assert.ok(!path.includes(element), `${element} in ${path.join(', ')}`);
    const external = (await rest(
      'worker',
      'GET',
      `/external-task?processInstanceId=${started.id}`,
    )) as unknown[];
    assert.deepEqual(external, []);
  });

  /** The task of an element is found by exactly the candidate groups it should have. */
  async function assertCandidateGroups(instanceId: string, key: string, groups: string[]): Promise<void> {
    const withGroup = async (group: string) =>
      (await tasksOf(instanceId, `&candidateGroup=${group}&includeAssignedTasks=true`)).map(
        (task) => task.taskDefinitionKey,
      );
    for (const group of ['accounting', 'sales', 'management', 'team-assistant'])
      assert.deepEqual(
        await withGroup(group),
        groups.includes(group) ? [key] : [],
        `candidate group ${group}`,
      );
  }
});
