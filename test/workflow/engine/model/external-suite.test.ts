/**
 * Deploy-time behaviours checked against an external BPMN execution suite (betsy's conformance
 * models): what weft compiles must run as BPMN says, and what it cannot run must be refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertProblem, compileOne, compileProblems, definitions, element } from './helpers.js';

const chain = (taskAttributes: string) =>
  definitions(`<bpmn:startEvent id="s"/><bpmn:scriptTask id="work" scriptFormat="feel" ${taskAttributes}><bpmn:script>1</bpmn:script></bpmn:scriptTask>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/><bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/>`);

void describe('token quantities of activities', () => {
  void test('given a task with startQuantity 2, the deploy is refused naming the task (it would run on one token)', async () => {
    const problems = await compileProblems(chain('startQuantity="2"'));
    assertProblem(problems, 'work', /startQuantity="2" on 'work' is not supported/);
  });

  void test('given a task with completionQuantity 0 or 2, the deploy is refused naming the task', async () => {
    assertProblem(
      await compileProblems(chain('completionQuantity="0"')),
      'work',
      /completionQuantity="0" on 'work' is invalid/,
    );
    assertProblem(
      await compileProblems(chain('completionQuantity="2"')),
      'work',
      /completionQuantity="2" on 'work' is not supported/,
    );
  });

  void test('given explicit quantities of 1 (the default), the task deploys', async () => {
    const model = await compileOne(chain('startQuantity="1" completionQuantity="1"'));
    element(model, 'work', 'scriptTask');
  });
});

void describe('event definitions referenced with eventDefinitionRef', () => {
  const head = `<bpmn:error id="err" errorCode="E1"/><bpmn:errorEventDefinition id="failDef" errorRef="err"/>
    <bpmn:signal id="sig" name="stop"/><bpmn:signalEventDefinition id="stopDef" signalRef="sig"/>
    <bpmn:timerEventDefinition id="waitDef"><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition>`;

  void test('given an error end event that references its definition, it is an error end event, not a none end event', async () => {
    const model = await compileOne(
      definitions(
        `<bpmn:startEvent id="s"/><bpmn:endEvent id="fail"><bpmn:eventDefinitionRef>failDef</bpmn:eventDefinitionRef></bpmn:endEvent>
         <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="fail"/>`,
        head,
      ),
    );
    assert.deepEqual(element(model, 'fail', 'endEvent').eventDefinition, {
      kind: 'error',
      errorCode: 'E1',
      errorName: null,
    });
  });

  void test('given a boundary and a catch event that reference signal and timer definitions, they wait for them', async () => {
    const model = await compileOne(
      definitions(
        `<bpmn:startEvent id="s"/><bpmn:userTask id="work"/>
         <bpmn:boundaryEvent id="stop" attachedToRef="work"><bpmn:eventDefinitionRef>stopDef</bpmn:eventDefinitionRef></bpmn:boundaryEvent>
         <bpmn:intermediateCatchEvent id="pause"><bpmn:eventDefinitionRef>waitDef</bpmn:eventDefinitionRef></bpmn:intermediateCatchEvent>
         <bpmn:endEvent id="e"/><bpmn:endEvent id="stopped"/>
         <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/><bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="pause"/>
         <bpmn:sequenceFlow id="f3" sourceRef="pause" targetRef="e"/><bpmn:sequenceFlow id="f4" sourceRef="stop" targetRef="stopped"/>`,
        head,
      ),
    );
    assert.deepEqual(element(model, 'stop', 'boundaryEvent').eventDefinition, {
      kind: 'signal',
      signalName: 'stop',
    });
    assert.equal(element(model, 'pause', 'intermediateCatchEvent').eventDefinition.kind, 'timer');
  });

  void test('given an event with a contained and a referenced definition, the deploy is refused as a multiple event', async () => {
    const problems = await compileProblems(
      definitions(
        `<bpmn:startEvent id="s"/><bpmn:endEvent id="fail"><bpmn:errorEventDefinition errorRef="err"/><bpmn:eventDefinitionRef>stopDef</bpmn:eventDefinitionRef></bpmn:endEvent>
         <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="fail"/>`,
        head,
      ),
    );
    assertProblem(problems, 'fail', /several event definitions/);
  });
});

void describe('multi-instance behaviors that throw events', () => {
  const head = `<bpmn:signal id="sig" name="done"/>`;
  const loop = (attributes: string, body = '') =>
    definitions(
      `<bpmn:startEvent id="s"/><bpmn:userTask id="work"><bpmn:multiInstanceLoopCharacteristics ${attributes}>
         <bpmn:loopCardinality>= 3</bpmn:loopCardinality>${body}</bpmn:multiInstanceLoopCharacteristics></bpmn:userTask>
       <bpmn:endEvent id="e"/><bpmn:intermediateThrowEvent id="t"><bpmn:signalEventDefinition id="doneDef" signalRef="sig"/></bpmn:intermediateThrowEvent>
       <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/><bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="t"/>
       <bpmn:sequenceFlow id="f3" sourceRef="t" targetRef="e"/>`,
      head,
    );

  void test('given behavior None or One with an event to throw, the deploy is refused naming the activity (the event would never be thrown)', async () => {
    assertProblem(
      await compileProblems(loop('behavior="None" noneBehaviorEventRef="doneDef"')),
      'work',
      /multi-instance behavior 'None' of 'work' throws events/,
    );
    assertProblem(
      await compileProblems(loop('behavior="One" oneBehaviorEventRef="doneDef"')),
      'work',
      /multi-instance behavior 'One' of 'work' throws events/,
    );
  });

  void test('given behavior Complex with a behavior definition, the deploy is refused naming the activity', async () => {
    const body = `<bpmn:complexBehaviorDefinition><bpmn:condition>= true</bpmn:condition></bpmn:complexBehaviorDefinition>`;
    assertProblem(
      await compileProblems(loop('behavior="Complex"', body)),
      'work',
      /multi-instance behavior 'Complex' of 'work' throws events/,
    );
  });

  void test('given behavior All, or None without an event, the activity deploys (nothing is thrown either way)', async () => {
    await compileOne(loop('behavior="All"'));
    await compileOne(loop('behavior="None"'));
  });
});

void test('given an end event with an outgoing sequence flow, the deploy is refused naming the end event (the token went on past it)', async () => {
  const problems = await compileProblems(
    definitions(`<bpmn:startEvent id="s"/><bpmn:endEvent id="done"/><bpmn:userTask id="later"/>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="done"/><bpmn:sequenceFlow id="f2" sourceRef="done" targetRef="later"/>`),
  );
  assertProblem(problems, 'done', /end event 'done' must not have outgoing sequence flows/);
});

void test('given an instantiating or parallel event-based gateway, the deploy is refused naming the gateway (it would run as an exclusive one)', async () => {
  const gateway = (attributes: string) =>
    definitions(`<bpmn:startEvent id="s"/><bpmn:eventBasedGateway id="g" ${attributes}/>
      <bpmn:intermediateCatchEvent id="a"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
      <bpmn:intermediateCatchEvent id="b"><bpmn:timerEventDefinition><bpmn:timeDuration>PT2M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
      <bpmn:endEvent id="e1"/><bpmn:endEvent id="e2"/>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="g"/><bpmn:sequenceFlow id="f2" sourceRef="g" targetRef="a"/>
      <bpmn:sequenceFlow id="f3" sourceRef="g" targetRef="b"/><bpmn:sequenceFlow id="f4" sourceRef="a" targetRef="e1"/>
      <bpmn:sequenceFlow id="f5" sourceRef="b" targetRef="e2"/>`);
  assertProblem(
    await compileProblems(gateway('instantiate="true"')),
    'g',
    /instantiates the process or is parallel/,
  );
  assertProblem(
    await compileProblems(gateway('eventGatewayType="Parallel"')),
    'g',
    /instantiates the process or is parallel/,
  );
  await compileOne(gateway('eventGatewayType="Exclusive"'));
});
