import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basic, createCamundaFixture, type CamundaFixture } from './camunda-fixture.js';
import { modelerDeploymentRequest, type ModelerFile } from './modeler-deployment.js';

// A start form and one user task per kind of form reference, all opened at once by a fork.
const tasks: [string, string][] = [
  ['byRef', 'camunda:formRef="invoice" camunda:formRefBinding="deployment"'],
  ['byResource', 'camunda:formKey="camunda-forms:deployment:invoice.form"'],
  ['latest', 'camunda:formRef="invoice"'],
  ['missing', 'camunda:formRef="nope"'],
  ['noResource', 'camunda:formKey="camunda-forms:deployment:other.form"'],
  ['appForm', 'camunda:formKey="camunda-forms:app:forms/x.form"'],
  ['noForm', ''],
];
const diagram: ModelerFile = {
  name: 'invoice-forms.bpmn',
  contents: `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="urn:test">
  <bpmn:process id="invoice-forms" isExecutable="true">
    <bpmn:startEvent id="start" camunda:formRef="start-form" />
    <bpmn:sequenceFlow id="f0" sourceRef="start" targetRef="fork" />
    <bpmn:parallelGateway id="fork" />
    ${tasks
      .map(
        ([id, attrs]) => `
    <bpmn:sequenceFlow id="to-${id}" sourceRef="fork" targetRef="${id}" />
    <bpmn:userTask id="${id}" ${attrs} />
    <bpmn:sequenceFlow id="from-${id}" sourceRef="${id}" targetRef="end-${id}" />
    <bpmn:endEvent id="end-${id}" />`,
      )
      .join('')}
  </bpmn:process>
</bpmn:definitions>`,
};
const form = (id: string, label: string) => ({
  id,
  type: 'default',
  components: [{ key: 'amount', label, type: 'number' }],
});
const file = (name: string, contents: unknown): ModelerFile => ({
  name,
  contents: typeof contents === 'string' ? contents : JSON.stringify(contents, null, 2),
});

describe('/engine-rest: Camunda Forms deployed alongside, task and start forms', () => {
  let fixture: CamundaFixture;
  let developer: string;
  let taskIds: Record<string, string>;
  before(async () => {
    fixture = await createCamundaFixture();
    const userId = await fixture.workflow.createUser('developer@example.com', 'developer password');
    const granted = await fixture.workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/${fixture.orgs.acme}/members/${userId}`,
      token: fixture.admin,
      body: { roles: ['Developer'] },
    });
    assert.equal(granted.statusCode < 300, true, granted.body);
    developer = basic('developer@example.com', 'developer password');
  });
  after(() => fixture.close());

  const deploy = async (main: ModelerFile, attachments: ModelerFile[] = []) => {
    const { payload, headers } = await modelerDeploymentRequest(main, { name: 'forms', attachments });
    return fixture.camunda({
      method: 'POST',
      url: '/engine-rest/deployment/create',
      body: payload,
      headers,
      authorization: developer,
    });
  };
  const get = (path: string, authorization = developer) =>
    fixture.camunda({ method: 'GET', url: `/engine-rest${path}`, authorization });
  const assertError = (response: { statusCode: number; body: string }, status: number, message: string) => {
    assert.equal(response.statusCode, status, response.body);
    assert.deepEqual(JSON.parse(response.body), { type: 'InvalidRequestException', message });
  };

  test('deployment/create stores .form files with the BPMN; tasks find them by reference', async () => {
    const deployed = await deploy(diagram, [
      file('invoice.form', form('invoice', 'Amount')),
      file('start.form', form('start-form', 'Start amount')),
    ]);
    assert.equal(deployed.statusCode, 200, deployed.body);
    const started = await fixture.camunda({
      method: 'POST',
      url: '/engine-rest/process-definition/key/invoice-forms/start',
      body: {},
      authorization: `Bearer ${fixture.admin}`,
    });
    assert.equal(started.statusCode, 200, started.body);
    const listed = await get(`/task?processInstanceId=${(started.json() as { id: string }).id}`);
    const rows = listed.json() as { id: string; taskDefinitionKey: string; camundaFormRef: unknown }[];
    taskIds = Object.fromEntries(rows.map((row) => [row.taskDefinitionKey, row.id]));
    assert.deepEqual(rows.find((row) => row.taskDefinitionKey === 'byRef')?.camundaFormRef, {
      key: 'invoice',
      binding: 'deployment',
      version: null,
    });

    const formKey = await get(`/task/${taskIds.byRef}/form`);
    assert.deepEqual(formKey.json(), {
      key: null,
      contextPath: null,
      camundaFormRef: { key: 'invoice', binding: 'deployment', version: null },
    });
    for (const task of ['byRef', 'byResource', 'latest']) {
      const deployedForm = await get(`/task/${taskIds[task]}/deployed-form`);
      assert.equal(deployedForm.statusCode, 200, deployedForm.body);
      assert.equal(deployedForm.headers['content-type'], 'application/json');
      assert.deepEqual(deployedForm.json(), form('invoice', 'Amount'));
    }
    // weft's own task API gives the same schema.
    const own = await fixture.workflow.request({
      method: 'GET',
      url: `/api/v1/tasks/${taskIds.byResource}`,
      token: fixture.users.worker.jwt,
    });
    assert.deepEqual((own.json() as { form: unknown }).form, form('invoice', 'Amount'));
  });

  test('deployed-form answers Camunda’s 400 and 404 when there is no form to give', async () => {
    assertError(
      await get(`/task/${taskIds.noForm}/deployed-form`),
      400,
      "One of the attributes 'formKey' and 'camunda:formRef' must be supplied but none were set.",
    );
    assertError(
      await get(`/task/${taskIds.appForm}/deployed-form`),
      400,
      "The form key 'camunda-forms:app:forms/x.form' does not reference a deployed form.",
    );
    assertError(
      await get(`/task/${taskIds.missing}/deployed-form`),
      404,
      'No Camunda Form Definition was found for Camunda Form Ref: CamundaFormRefImpl [key=nope, binding=latest, version=null]',
    );
    const noResource = await get(`/task/${taskIds.noResource}/deployed-form`);
    assert.equal(noResource.statusCode, 404, noResource.body);
    assert.match(
      (noResource.json() as { message: string }).message,
      /^The form with the resource name 'other\.form' cannot be found in deployment with id [0-9a-f-]{36}$/,
    );
    const unknown = await get('/task/00000000-0000-0000-0000-000000000001/deployed-form');
    assert.equal(unknown.statusCode, 404);
  });

  test('startForm and deployed-start-form, by id and by key', async () => {
    const startForm = await get('/process-definition/key/invoice-forms/startForm');
    assert.equal(startForm.statusCode, 200, startForm.body);
    assert.deepEqual(startForm.json(), {
      key: null,
      contextPath: null,
      camundaFormRef: { key: 'start-form', binding: 'latest', version: null },
    });
    const definition = (await get('/process-definition/key/invoice-forms')).json() as { id: string };
    const byId = await get(`/process-definition/${definition.id}/deployed-start-form`);
    assert.equal(byId.statusCode, 200, byId.body);
    assert.deepEqual(byId.json(), form('start-form', 'Start amount'));
    const charge = await get('/process-definition/key/charge-card/tenant-id/acme/deployed-start-form');
    assertError(
      charge,
      400,
      "One of the attributes 'formKey' and 'camunda:formRef' must be supplied but none were set.",
    );
  });

  test('a deployment of forms alone adds versions that binding latest finds; bad forms are a 400', async () => {
    const alone = await deploy(file('invoice.form', form('invoice', 'Amount, second')));
    assert.equal(alone.statusCode, 200, alone.body);
    const body = alone.json() as { id: string; name: string | null; deployedProcessDefinitions: unknown };
    assert.equal(body.deployedProcessDefinitions, null);
    const listed = (await get(`/deployment?id=${body.id}`)).json() as { id: string }[];
    assert.deepEqual(
      listed.map((deployment) => deployment.id),
      [body.id],
    );
    assert.deepEqual(
      (await get(`/task/${taskIds.latest}/deployed-form`)).json(),
      form('invoice', 'Amount, second'),
    );
    // The task bound to its deployment keeps the version deployed with its process.
    assert.deepEqual((await get(`/task/${taskIds.byRef}/deployed-form`)).json(), form('invoice', 'Amount'));

    const broken = await deploy(diagram, [file('broken.form', '{"id": "broken", ')]);
    assert.equal(broken.statusCode, 400, broken.body);
    const error = broken.json() as { type: string; message: string; details: Record<string, unknown> };
    assert.equal(error.type, 'ParseException');
    assert.match(error.message, /the form 'broken\.form' is not valid JSON/);
    assert.deepEqual(Object.keys(error.details), ['broken.form']);
    const noId = await deploy(file('list.form', [1, 2]));
    assert.equal(noId.statusCode, 400, noId.body);
    assert.match((noId.json() as { message: string }).message, /the form 'list\.form' is not a JSON object/);
  });
});
