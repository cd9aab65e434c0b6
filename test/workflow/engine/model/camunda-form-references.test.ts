import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertProblem, compileOne, compileProblems, definitions, element } from './helpers.js';

// A user task between a start event (with `startAttrs`) and an end.
const withTask = (taskAttrs: string, startAttrs = '') =>
  definitions(`
    <bpmn:startEvent id="start" ${startAttrs} />
    <bpmn:sequenceFlow id="in" sourceRef="start" targetRef="t" />
    <bpmn:userTask id="t" ${taskAttrs} />
    <bpmn:sequenceFlow id="out" sourceRef="t" targetRef="end" />
    <bpmn:endEvent id="end" />`);

void describe('Camunda 7 camunda:formRef on user tasks and start events', () => {
  test('the reference is kept with its binding: latest by default, deployment, version with its number', async () => {
    const latest = element(await compileOne(withTask('camunda:formRef="invoice"')), 't', 'userTask');
    assert.deepEqual(latest.formRef, { formKey: 'invoice', binding: 'latest', version: null });
    assert.equal(latest.formKey, null);
    const deployment = element(
      await compileOne(withTask('camunda:formRef="invoice" camunda:formRefBinding="deployment"')),
      't',
      'userTask',
    );
    assert.deepEqual(deployment.formRef, { formKey: 'invoice', binding: 'deployment', version: null });
    const version = element(
      await compileOne(
        withTask('camunda:formRef="invoice" camunda:formRefBinding="version" camunda:formRefVersion="3"'),
      ),
      't',
      'userTask',
    );
    assert.deepEqual(version.formRef, { formKey: 'invoice', binding: 'version', version: 3 });
    const none = element(
      await compileOne(withTask('camunda:formKey="embedded:app:x.html"')),
      't',
      'userTask',
    );
    assert.equal('formRef' in none, false);
  });

  test('a start event keeps its form key and its form reference', async () => {
    const model = await compileOne(
      withTask('', 'camunda:formRef="start-form" camunda:formRefBinding="deployment"'),
    );
    const start = element(model, 'start', 'startEvent');
    assert.deepEqual(start.formRef, { formKey: 'start-form', binding: 'deployment', version: null });
    const keyed = element(
      await compileOne(withTask('', 'camunda:formKey="camunda-forms:deployment:start.form"')),
      'start',
      'startEvent',
    );
    assert.equal(keyed.formKey, 'camunda-forms:deployment:start.form');
    assert.equal('formRef' in keyed, false);
  });

  test('expressions, unknown bindings, missing or bad versions and formKey beside formRef are refused', async () => {
    const juel = await compileProblems(withTask('camunda:formRef="${formName}"'));
    assertProblem(
      juel,
      't',
      /camunda:formRef of user task 't' is the expression '\$\{formName\}', which weft does not evaluate/,
    );
    const binding = await compileProblems(
      withTask('camunda:formRef="f" camunda:formRefBinding="versionTag"'),
    );
    assertProblem(
      binding,
      't',
      /camunda:formRefBinding of user task 't' is 'versionTag': it must be latest, deployment or version/,
    );
    const noVersion = await compileProblems(withTask('camunda:formRef="f" camunda:formRefBinding="version"'));
    assertProblem(noVersion, 't', /without camunda:formRefVersion/);
    const badVersion = await compileProblems(
      withTask('camunda:formRef="f" camunda:formRefBinding="version" camunda:formRefVersion="0"'),
    );
    assertProblem(
      badVersion,
      't',
      /camunda:formRefVersion of user task 't' is '0': it must be a positive whole number/,
    );
    const both = await compileProblems(withTask('camunda:formRef="f" camunda:formKey="k"'));
    assertProblem(both, 't', /has both camunda:formKey and camunda:formRef/);
    const orphan = await compileProblems(withTask('', 'camunda:formRefBinding="latest"'));
    assertProblem(
      orphan,
      'start',
      /camunda:formRefBinding or camunda:formRefVersion without camunda:formRef/,
    );
  });
});
