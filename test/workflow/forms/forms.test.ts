import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from '../engine/api/engine-fixture.js';

// A process whose start forks into one user task per way of naming a form, each to its own end.
const formTasks: [string, string][] = [
  ['latest', 'camunda:formRef="invoice"'],
  ['deployment', 'camunda:formRef="invoice" camunda:formRefBinding="deployment"'],
  ['version', 'camunda:formRef="invoice" camunda:formRefBinding="version" camunda:formRefVersion="1"'],
  ['resource', 'camunda:formKey="camunda-forms:deployment:invoice.form"'],
  ['absent', 'camunda:formRef="invoice" camunda:formRefBinding="version" camunda:formRefVersion="9"'],
  ['app', 'camunda:formKey="camunda-forms:app:forms/invoice.form"'],
];
const bpmn = (name: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="urn:test">
  <bpmn:process id="forms" name="${name}" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:sequenceFlow id="f0" sourceRef="start" targetRef="fork" />
    <bpmn:parallelGateway id="fork" />
    ${formTasks
      .map(
        ([id, attrs]) => `
    <bpmn:sequenceFlow id="to-${id}" sourceRef="fork" targetRef="${id}" />
    <bpmn:userTask id="${id}" ${attrs} />
    <bpmn:sequenceFlow id="from-${id}" sourceRef="${id}" targetRef="end-${id}" />
    <bpmn:endEvent id="end-${id}" />`,
      )
      .join('')}
  </bpmn:process>
</bpmn:definitions>`;

const invoiceForm = (label: string) => ({
  id: 'invoice',
  type: 'default',
  schemaVersion: 16,
  components: [{ key: 'amount', label, type: 'number' }],
});

interface FormVersion {
  form_key: string;
  version: number;
  resource_name: string;
}

interface TaskDetails {
  id: string;
  activity_id: string;
  form_key: string | null;
  form_ref: { form_key: string; binding: string; version: number | null } | null;
  form: { components: { label: string }[] } | null;
}

describe('Camunda Forms deployed with weft’s API and resolved for the task API', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
  });
  after(() => f?.close());

  const deploy = (xml: string, forms: unknown[], draft = false) =>
    f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, xml, forms, ...(draft ? { draft } : {}) },
    });
  const formsOf = (response: { json(): unknown }) =>
    (response.json() as { forms: FormVersion[] }).forms.map((form) => [
      form.form_key,
      form.version,
      form.resource_name,
    ]);
  // The label each task's form shows (null: no form), by task.
  const labels = async (instanceId: string) => {
    const listed = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instanceId}`,
      token: f.tokens.reader,
    });
    assert.equal(listed.statusCode, 200, listed.body);
    const shown: Record<string, string | null> = {};
    for (const { id } of listed.json() as { id: string }[]) {
      const task = (
        await f.workflow.request({ method: 'GET', url: `/api/v1/tasks/${id}`, token: f.tokens.reader })
      ).json() as TaskDetails;
      shown[task.activity_id] = task.form?.components[0]?.label ?? null;
    }
    return shown;
  };

  test('forms are versioned per key; the three bindings and camunda-forms:deployment: find their version', async () => {
    const first = await deploy(bpmn('Forms'), [{ name: 'invoice.form', schema: invoiceForm('Amount v1') }]);
    assert.equal(first.statusCode, 201, first.body);
    assert.deepEqual(formsOf(first), [['invoice', 1, 'invoice.form']]);
    const one = await f.start('forms');
    assert.deepEqual(await labels(one.id), {
      latest: 'Amount v1',
      deployment: 'Amount v1',
      version: 'Amount v1',
      resource: 'Amount v1',
      absent: null,
      app: null,
    });

    // The same form again keeps its version; a changed one is the next version of its key.
    const same = await deploy(bpmn('Forms'), [{ name: 'invoice.form', schema: invoiceForm('Amount v1') }]);
    assert.equal(same.statusCode, 200, same.body);
    assert.deepEqual(formsOf(same), [['invoice', 1, 'invoice.form']]);
    const changed = await deploy(bpmn('Forms'), [{ name: 'invoice.form', schema: invoiceForm('Amount v2') }]);
    assert.equal(changed.statusCode, 201, changed.body);
    assert.deepEqual(formsOf(changed), [['invoice', 2, 'invoice.form']]);
    // The process version did not change: `latest` sees v2, the others keep what they were bound to.
    assert.deepEqual(await labels(one.id), {
      latest: 'Amount v2',
      deployment: 'Amount v1',
      version: 'Amount v1',
      resource: 'Amount v1',
      absent: null,
      app: null,
    });

    // A new process version deploys its (unchanged) form again, so that it finds it in its deployment.
    const next = await deploy(bpmn('Forms, second'), [
      { name: 'invoice.form', schema: invoiceForm('Amount v2') },
    ]);
    assert.equal(next.statusCode, 201, next.body);
    assert.deepEqual(formsOf(next), [['invoice', 3, 'invoice.form']]);
    const two = await f.start('forms');
    assert.deepEqual(await labels(two.id), {
      latest: 'Amount v2',
      deployment: 'Amount v2',
      version: 'Amount v1',
      resource: 'Amount v2',
      absent: null,
      app: null,
    });
  });

  test('a task shows its form reference and key; app forms stay plain keys', async () => {
    const started = await f.start('forms');
    const listed = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${started.id}`,
        token: f.tokens.reader,
      })
    ).json() as { id: string; activity_id: string }[];
    const task = async (activity: string) => {
      const id = listed.find((row) => row.activity_id === activity)?.id;
      const response = await f.workflow.request({
        method: 'GET',
        url: `/api/v1/tasks/${id}`,
        token: f.tokens.reader,
      });
      return response.json() as TaskDetails;
    };
    const version = await task('version');
    assert.deepEqual(version.form_ref, { form_key: 'invoice', binding: 'version', version: 1 });
    assert.equal(version.form_key, null);
    const app = await task('app');
    assert.equal(app.form_ref, null);
    assert.equal(app.form_key, 'camunda-forms:app:forms/invoice.form');
    assert.equal(app.form, null);
  });

  test('a form without a string id, two forms of one key and forms with a draft are refused with 400', async () => {
    const noId = await deploy(bpmn('Forms'), [{ name: 'bad.form', schema: { components: [] } }]);
    assert.equal(noId.statusCode, 400, noId.body);
    assert.match(noId.body, /the form 'bad\.form' has no string 'id'/);
    const twice = await deploy(bpmn('Forms'), [
      { name: 'a.form', schema: invoiceForm('A') },
      { name: 'b.form', schema: invoiceForm('B') },
    ]);
    assert.equal(twice.statusCode, 400, twice.body);
    assert.match(twice.body, /the form 'invoice' is also defined in a\.form/);
    const draft = await deploy(bpmn('Draft'), [{ name: 'invoice.form', schema: invoiceForm('D') }], true);
    assert.equal(draft.statusCode, 400, draft.body);
    assert.match(draft.body, /forms cannot be deployed with a draft/);
    // Nothing of the refused deployments was stored: the latest version is still 3.
    const again = await deploy(bpmn('Forms, second'), [
      { name: 'invoice.form', schema: invoiceForm('Amount v2') },
    ]);
    assert.deepEqual(formsOf(again), [['invoice', 3, 'invoice.form']]);
  });
});
