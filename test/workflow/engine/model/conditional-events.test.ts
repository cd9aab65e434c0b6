import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem, compileOne, compileProblems, definitions, element } from './helpers.js';

const catchWith = (definition: string) =>
  definitions(`<bpmn:startEvent id="s"/><bpmn:intermediateCatchEvent id="c">${definition}</bpmn:intermediateCatchEvent>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="c"/><bpmn:sequenceFlow id="f2" sourceRef="c" targetRef="e"/>`);

void test('a conditional event compiles its FEEL condition and Camunda variable filters', async () => {
  const model = await compileOne(
    catchWith(`<bpmn:conditionalEventDefinition camunda:variableName="amount" camunda:variableEvents="create, update">
      <bpmn:condition>= amount &gt; 10</bpmn:condition></bpmn:conditionalEventDefinition>`),
  );
  assert.deepEqual(element(model, 'c', 'intermediateCatchEvent').eventDefinition, {
    kind: 'conditional',
    condition: 'amount > 10',
    variableName: 'amount',
    variableEvents: ['create', 'update'],
  });
});

void test('conditional boundary events and event sub-process starts compile, interrupting or not', async () => {
  const model = await compileOne(
    definitions(`<bpmn:startEvent id="s"/><bpmn:userTask id="work"/><bpmn:endEvent id="e"/>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/><bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
      <bpmn:boundaryEvent id="b" attachedToRef="work" cancelActivity="false">
        <bpmn:conditionalEventDefinition><bpmn:condition>= late</bpmn:condition></bpmn:conditionalEventDefinition>
      </bpmn:boundaryEvent>
      <bpmn:subProcess id="esp" triggeredByEvent="true">
        <bpmn:startEvent id="es"><bpmn:conditionalEventDefinition><bpmn:condition>= stop</bpmn:condition></bpmn:conditionalEventDefinition></bpmn:startEvent>
        <bpmn:endEvent id="ee"/><bpmn:sequenceFlow id="f3" sourceRef="es" targetRef="ee"/>
      </bpmn:subProcess>`),
  );
  assert.equal(element(model, 'b', 'boundaryEvent').eventDefinition.kind, 'conditional');
  assert.equal(element(model, 'b', 'boundaryEvent').cancelActivity, false);
  assert.equal(element(model, 'es', 'startEvent').eventDefinition.kind, 'conditional');
});

void test('a JUEL syntax error, a FEEL syntax error and an unknown variable event are deploy problems', async () => {
  const juel = await compileProblems(
    catchWith(
      '<bpmn:conditionalEventDefinition><bpmn:condition>${ready &amp;&amp;}</bpmn:condition></bpmn:conditionalEventDefinition>',
    ),
  );
  assertProblem(juel, 'c', /JUEL error in condition of 'c'/);
  const syntax = await compileProblems(
    catchWith(
      '<bpmn:conditionalEventDefinition><bpmn:condition>= a &gt;</bpmn:condition></bpmn:conditionalEventDefinition>',
    ),
  );
  assertProblem(syntax, 'c', /FEEL syntax error in condition of 'c'/);
  const events = await compileProblems(
    catchWith(
      '<bpmn:conditionalEventDefinition camunda:variableEvents="create, change"><bpmn:condition>= a</bpmn:condition></bpmn:conditionalEventDefinition>',
    ),
  );
  assertProblem(events, 'c', /variableEvents of 'c' lists 'change'/);
});
