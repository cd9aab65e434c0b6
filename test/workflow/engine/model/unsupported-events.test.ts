import { test } from 'node:test';
import { assertProblem, compileProblems, definitions } from './helpers.js';

const task = (body: string) =>
  definitions(`<bpmn:startEvent id="s"/><bpmn:userTask id="work"/><bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/><bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
    ${body}`);

void test('multiple and parallel multiple events are rejected at deploy, saying Camunda 7 lacks them too', async () => {
  const multiple = await compileProblems(
    task(
      `<bpmn:boundaryEvent id="either" attachedToRef="work">
         <bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition>
         <bpmn:signalEventDefinition signalRef="Sig"/>
       </bpmn:boundaryEvent>`,
    ).replace('<bpmn:process', '<bpmn:signal id="Sig" name="go"/><bpmn:process'),
  );
  assertProblem(
    multiple,
    'either',
    /a multiple event\); multiple and parallel multiple events are not supported \(Camunda 7/,
  );
  const parallel = await compileProblems(
    definitions(
      `<bpmn:startEvent id="s"/><bpmn:intermediateCatchEvent id="both" parallelMultiple="true">
         <bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition>
         <bpmn:timerEventDefinition><bpmn:timeDuration>PT2H</bpmn:timeDuration></bpmn:timerEventDefinition>
       </bpmn:intermediateCatchEvent>
       <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="both"/>`,
    ),
  );
  assertProblem(parallel, 'both', /a parallel multiple event\)/);
});

void test('a conditional start event of the process itself is rejected: only event sub-processes may have one', async () => {
  const problems = await compileProblems(
    definitions(
      `<bpmn:startEvent id="whenReady"><bpmn:conditionalEventDefinition>
         <bpmn:condition>= ready</bpmn:condition></bpmn:conditionalEventDefinition></bpmn:startEvent>
       <bpmn:endEvent id="e"/><bpmn:sequenceFlow id="f1" sourceRef="whenReady" targetRef="e"/>`,
    ),
  );
  assertProblem(
    problems,
    'whenReady',
    /conditional start event 'whenReady' is only supported as the start of an event sub-process/,
  );
});
