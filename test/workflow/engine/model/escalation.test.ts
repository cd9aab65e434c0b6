import assert from 'node:assert/strict';
import { test } from 'node:test';
import { around, assertProblem, compileOne, compileProblems, definitions, element } from './helpers.js';

const ESCALATIONS = `<bpmn:escalation id="Esc_Late" name="Late" escalationCode="late"/>
  <bpmn:escalation id="Esc_Blank" name="Blank"/>`;

const withEscalations = (body: string) => definitions(body, ESCALATIONS);

// start → stage (sub-process: start → ${inner} → end) → end, plus ${outside} in the process.
const stage = (inner: string, outside = '') =>
  withEscalations(`<bpmn:startEvent id="s"/><bpmn:endEvent id="e"/>
    <bpmn:subProcess id="stage"><bpmn:startEvent id="ss"/>${inner}<bpmn:endEvent id="se"/>
      <bpmn:sequenceFlow id="i1" sourceRef="ss" targetRef="up"/><bpmn:sequenceFlow id="i2" sourceRef="up" targetRef="se"/>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="stage"/><bpmn:sequenceFlow id="f2" sourceRef="stage" targetRef="e"/>
    ${outside}`);

void test('escalation throw, end, boundary and event sub-process start events compile with their codes', async () => {
  const model = await compileOne(
    stage(
      `<bpmn:intermediateThrowEvent id="up"><bpmn:escalationEventDefinition escalationRef="Esc_Late"/></bpmn:intermediateThrowEvent>`,
      `<bpmn:boundaryEvent id="onLate" attachedToRef="stage" cancelActivity="false"><bpmn:escalationEventDefinition escalationRef="Esc_Late"/></bpmn:boundaryEvent>
       <bpmn:boundaryEvent id="onAny" attachedToRef="stage"><bpmn:escalationEventDefinition/></bpmn:boundaryEvent>
       <bpmn:subProcess id="esp" triggeredByEvent="true">
         <bpmn:startEvent id="espStart" isInterrupting="false"><bpmn:escalationEventDefinition escalationRef="Esc_Late"/></bpmn:startEvent>
         <bpmn:endEvent id="espEnd"><bpmn:escalationEventDefinition escalationRef="Esc_Late"/></bpmn:endEvent>
         <bpmn:sequenceFlow id="x1" sourceRef="espStart" targetRef="espEnd"/>
       </bpmn:subProcess>`,
    ),
  );
  const late = { kind: 'escalation', escalationCode: 'late', escalationName: 'Late' };
  assert.deepEqual(element(model, 'up', 'intermediateThrowEvent').eventDefinition, late);
  assert.deepEqual(element(model, 'onLate', 'boundaryEvent').eventDefinition, late);
  assert.equal(element(model, 'onLate', 'boundaryEvent').cancelActivity, false);
  assert.deepEqual(element(model, 'onAny', 'boundaryEvent').eventDefinition, {
    kind: 'escalation',
    escalationCode: null,
    escalationName: null,
  });
  assert.equal(element(model, 'espStart', 'startEvent').isInterrupting, false);
  assert.deepEqual(element(model, 'espEnd', 'endEvent').eventDefinition, late);
});

void test('an escalation throw or end event without an escalation code is a problem', async () => {
  const blank = await compileProblems(
    stage(
      `<bpmn:intermediateThrowEvent id="up"><bpmn:escalationEventDefinition escalationRef="Esc_Blank"/></bpmn:intermediateThrowEvent>`,
    ),
  );
  assertProblem(blank, 'up', /escalation event 'up' has no escalation code/);
  const none = await compileProblems(
    withEscalations(around(`<bpmn:endEvent id="up"><bpmn:escalationEventDefinition/></bpmn:endEvent>`, 's')),
  );
  assertProblem(none, 'up', /escalation event 'up' has no escalation code/);
});

void test('an escalation boundary event on a task is a problem naming the task', async () => {
  const problems = await compileProblems(
    withEscalations(
      `${around('<bpmn:userTask id="work"/>', 'work')}
       <bpmn:boundaryEvent id="caught" attachedToRef="work"><bpmn:escalationEventDefinition/></bpmn:boundaryEvent>`,
    ),
  );
  assertProblem(
    problems,
    'caught',
    /escalation boundary event 'caught' must be attached to a sub-process or call activity, not userTask 'work'/,
  );
});

void test('escalation catch events and process-level escalation starts are problems', async () => {
  const catching = await compileProblems(
    withEscalations(
      around(
        `<bpmn:intermediateCatchEvent id="c"><bpmn:escalationEventDefinition escalationRef="Esc_Late"/></bpmn:intermediateCatchEvent>`,
        'c',
      ),
    ),
  );
  assertProblem(catching, 'c', /intermediateCatchEvent 'c' cannot be an escalation event/);
  const start = await compileProblems(
    withEscalations(
      `<bpmn:startEvent id="s"><bpmn:escalationEventDefinition escalationRef="Esc_Late"/></bpmn:startEvent><bpmn:endEvent id="e"/>
       <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="e"/>`,
    ),
  );
  assertProblem(start, 's', /escalation start event \('s'\) is only allowed in an event sub-process/);
});
