import { test } from 'node:test';
import { assertProblem, compileProblems, definitions } from './helpers.js';

const task = (body: string) =>
  definitions(`<bpmn:startEvent id="s"/><bpmn:userTask id="work"/><bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/><bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
    ${body}`);

void test('escalation events are rejected at deploy with the element id', async () => {
  const throwing = await compileProblems(
    definitions(
      `<bpmn:startEvent id="s"/><bpmn:intermediateThrowEvent id="up"><bpmn:escalationEventDefinition/></bpmn:intermediateThrowEvent>
       <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="up"/>`,
    ),
  );
  assertProblem(throwing, 'up', /escalationEventDefinition on 'up' is not supported/);
  const boundary = await compileProblems(
    task(
      `<bpmn:boundaryEvent id="caught" attachedToRef="work"><bpmn:escalationEventDefinition/></bpmn:boundaryEvent>`,
    ),
  );
  assertProblem(boundary, 'caught', /escalationEventDefinition on 'caught' is not supported/);
});
