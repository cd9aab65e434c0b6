import { test } from 'node:test';
import { assertProblem, compileProblems, definitions } from './helpers.js';

const task = (body: string) =>
  definitions(`<bpmn:startEvent id="s"/><bpmn:userTask id="work"/><bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/><bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
    ${body}`);

void test('compensation events and handlers are rejected at deploy with the element id', async () => {
  const boundary = await compileProblems(
    task(
      `<bpmn:boundaryEvent id="undo" attachedToRef="work"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
       <bpmn:serviceTask id="refund" isForCompensation="true"/>`,
    ),
  );
  assertProblem(boundary, 'undo', /compensateEventDefinition on 'undo' is not supported/);
  assertProblem(boundary, 'refund', /compensation handler 'refund' is not supported/);
  const end = await compileProblems(
    definitions(
      `<bpmn:startEvent id="s"/><bpmn:endEvent id="comp"><bpmn:compensateEventDefinition/></bpmn:endEvent>
       <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="comp"/>`,
    ),
  );
  assertProblem(end, 'comp', /compensateEventDefinition on 'comp' is not supported/);
});
