import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  around,
  assertProblem,
  compileOne,
  compileProblems,
  definitions,
  element,
  fixture,
} from './helpers.js';

const flow = (id: string, from: string, to: string, condition?: string) =>
  condition === undefined
    ? `<bpmn:sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}"/>`
    : `<bpmn:sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}"><bpmn:conditionExpression>${condition}</bpmn:conditionExpression></bpmn:sequenceFlow>`;

const timerCatch = (id: string, definition: string) =>
  `<bpmn:intermediateCatchEvent id="${id}"><bpmn:timerEventDefinition>${definition}</bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>`;

const eventWith = (tag: string, id: string, definition: string) =>
  `<bpmn:${tag} id="${id}">${definition}</bpmn:${tag}>`;

/** name, process body, optional definitions head, element expected in the problem, message pattern. */
const cases: [string, string, string, string | null, RegExp][] = [
  ['no start event', '<bpmn:task id="t"/>', '', 'p', /process 'p' has no start event/],
  [
    'an element without incoming flow',
    around('<bpmn:task id="t"/>', 't') + '<bpmn:task id="orphan"/>',
    '',
    'orphan',
    /task 'orphan' has no incoming sequence flow/,
  ],
  [
    'default flow with a condition',
    `<bpmn:startEvent id="s"/><bpmn:exclusiveGateway id="g" default="fb"/><bpmn:endEvent id="a"/><bpmn:endEvent id="b"/>
     ${flow('f0', 's', 'g')}${flow('fa', 'g', 'a', 'x')}${flow('fb', 'g', 'b', 'y')}`,
    '',
    'fb',
    /default flow 'fb' of 'g' must not have a condition/,
  ],
  [
    'gateway with no outgoing flow',
    `<bpmn:startEvent id="s"/><bpmn:parallelGateway id="g"/>${flow('f0', 's', 'g')}`,
    '',
    'g',
    /parallelGateway 'g' has no outgoing sequence flow/,
  ],
  [
    'condition on a flow out of a parallel gateway',
    `<bpmn:startEvent id="s"/><bpmn:parallelGateway id="g"/><bpmn:endEvent id="e"/>${flow('f0', 's', 'g')}${flow('f1', 'g', 'e', 'x')}`,
    '',
    'f1',
    /condition on 'f1' is not allowed on a flow out of parallelGateway 'g'/,
  ],
  [
    'default flow of a task with a condition',
    `<bpmn:startEvent id="s"/><bpmn:task id="t" default="f2"/><bpmn:endEvent id="a"/><bpmn:endEvent id="b"/>
     ${flow('f0', 's', 't')}${flow('f1', 't', 'a', 'x')}${flow('f2', 't', 'b', 'y')}`,
    '',
    'f2',
    /default flow 'f2' of 't' must not have a condition/,
  ],
  [
    'complex gateway joining without an activation condition',
    `<bpmn:startEvent id="s"/><bpmn:parallelGateway id="fork"/><bpmn:complexGateway id="g"/><bpmn:endEvent id="e"/>
     ${flow('f0', 's', 'fork')}${flow('f1', 'fork', 'g')}${flow('f2', 'fork', 'g')}${flow('f3', 'g', 'e')}`,
    '',
    'g',
    /complex gateway 'g' joins several flows but has no activationCondition/,
  ],
  [
    'startQuantity other than 1',
    around('<bpmn:task id="t" startQuantity="2"/>', 't'),
    '',
    't',
    /startQuantity="2" on 't' is not supported; only 1 is/,
  ],
  [
    'completionQuantity of 0',
    around('<bpmn:task id="t" completionQuantity="0"/>', 't'),
    '',
    't',
    /completionQuantity="0" on 't' is invalid; it must be at least 1/,
  ],
  [
    'multi-instance complex behavior definition',
    around(
      `<bpmn:task id="t"><bpmn:multiInstanceLoopCharacteristics behavior="Complex"><bpmn:loopCardinality>3</bpmn:loopCardinality>
       <bpmn:complexBehaviorDefinition id="cb"><bpmn:condition>true</bpmn:condition></bpmn:complexBehaviorDefinition>
       </bpmn:multiInstanceLoopCharacteristics></bpmn:task>`,
      't',
    ),
    '',
    't',
    /multi-instance behavior 'Complex' of 't' throws events as instances complete/,
  ],
  [
    'instantiating receive task inside a sub-process',
    `<bpmn:startEvent id="s"/><bpmn:subProcess id="sp"><bpmn:startEvent id="ss"/><bpmn:receiveTask id="r" instantiate="true" messageRef="m"/></bpmn:subProcess>${flow('f0', 's', 'sp')}`,
    '<bpmn:message id="m" name="go"/>',
    'r',
    /receive task 'r' can only instantiate the process at its top level/,
  ],
  [
    'FEEL syntax error in a condition',
    `<bpmn:startEvent id="s"/><bpmn:exclusiveGateway id="g" default="fb"/><bpmn:endEvent id="a"/><bpmn:endEvent id="b"/>
     ${flow('f0', 's', 'g')}${flow('fa', 'g', 'a', 'amount &gt;')}${flow('fb', 'g', 'b')}`,
    '',
    'fa',
    /FEEL syntax error in condition of 'fa' at position 9: amount >/,
  ],
  [
    'JUEL syntax error in a condition',
    `<bpmn:startEvent id="s"/><bpmn:exclusiveGateway id="g" default="fb"/><bpmn:endEvent id="a"/><bpmn:endEvent id="b"/>
     ${flow('f0', 's', 'g')}${flow('fa', 'g', 'a', '${approved ==}')}${flow('fb', 'g', 'b')}`,
    '',
    'fa',
    /JUEL error in condition of 'fa': Unexpected '\}': expected a value \(at position 13 of \$\{approved ==\}\)/,
  ],
  [
    'FEEL syntax error in a Zeebe mapping',
    around(
      `<bpmn:task id="t"><bpmn:extensionElements><zeebe:ioMapping><zeebe:input source="=a +" target="x"/></zeebe:ioMapping></bpmn:extensionElements></bpmn:task>`,
      't',
    ),
    '',
    't',
    /FEEL syntax error in input mapping 'x' of 't'/,
  ],
  [
    'JUEL calling a bean in a Camunda input parameter',
    around(
      `<bpmn:task id="t"><bpmn:extensionElements><camunda:inputOutput><camunda:inputParameter name="x">\${bean.lookUp(a)}</camunda:inputParameter></camunda:inputOutput></bpmn:extensionElements></bpmn:task>`,
      't',
    ),
    '',
    't',
    /JUEL error in inputParameter 'x' of 't': Method 'lookUp' is not allowed in expressions/,
  ],
  [
    'service task with a Java delegate',
    around('<bpmn:serviceTask id="t" camunda:class="com.example.Delegate"/>', 't'),
    '',
    't',
    /service task 't' uses camunda:class, which is not supported/,
  ],
  [
    'external service task without topic',
    around('<bpmn:serviceTask id="t" camunda:type="external"/>', 't'),
    '',
    't',
    /'t' is camunda:type="external" but has no camunda:topic/,
  ],
  [
    'business rule task without decision reference',
    around('<bpmn:businessRuleTask id="t"/>', 't'),
    '',
    't',
    /business rule task 't' has no decision reference/,
  ],
  [
    'call activity without called element',
    around('<bpmn:callActivity id="t"/>', 't'),
    '',
    't',
    /call activity 't' has no called element/,
  ],
  [
    'script task in Groovy without a pipeline',
    around(
      '<bpmn:scriptTask id="t" scriptFormat="groovy"><bpmn:script>1 + 1</bpmn:script></bpmn:scriptTask>',
      't',
    ),
    '',
    't',
    /script task 't' is written in 'groovy', which weft cannot run/,
  ],
  [
    'timer without a definition',
    around(timerCatch('t', ''), 't'),
    '',
    't',
    /timer event 't' has no timeDate, timeDuration or timeCycle/,
  ],
  [
    'timer duration that is not ISO 8601',
    around(timerCatch('t', '<bpmn:timeDuration>5 minutes</bpmn:timeDuration>'), 't'),
    '',
    't',
    /timer event 't': invalid timeDuration '5 minutes'/,
  ],
  [
    'message catch event without a message',
    around(eventWith('intermediateCatchEvent', 't', '<bpmn:messageEventDefinition/>'), 't'),
    '',
    't',
    /message event 't' has no message name/,
  ],
  [
    'receive task without a message',
    around('<bpmn:receiveTask id="t"/>', 't'),
    '',
    't',
    /receive task 't' has no message name/,
  ],
  [
    'intermediate catch event without a trigger',
    around('<bpmn:intermediateCatchEvent id="t"/>', 't'),
    '',
    't',
    /intermediateCatchEvent 't' cannot be a none event/,
  ],
  [
    'error end event without an error code',
    `<bpmn:startEvent id="s"/>${eventWith('endEvent', 'e', '<bpmn:errorEventDefinition/>')}${flow('f', 's', 'e')}`,
    '',
    'e',
    /error end event 'e' has no error code/,
  ],
  [
    'boundary event attached to a missing element',
    around('<bpmn:task id="t"/>', 't') +
      `<bpmn:boundaryEvent id="b" attachedToRef="ghost"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>`,
    '',
    'b',
    /boundary event 'b' is not attached to an activity/,
  ],
  [
    'boundary event attached to a gateway',
    `<bpmn:startEvent id="s"/><bpmn:parallelGateway id="g"/><bpmn:endEvent id="e"/>${flow('f0', 's', 'g')}${flow('f1', 'g', 'e')}
     <bpmn:boundaryEvent id="b" attachedToRef="g"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>`,
    '',
    'b',
    /boundary event 'b' is not attached to an activity/,
  ],
  [
    'event-based gateway followed by a task',
    `<bpmn:startEvent id="s"/><bpmn:eventBasedGateway id="g"/><bpmn:task id="t"/>
     ${timerCatch('c', '<bpmn:timeDuration>PT1M</bpmn:timeDuration>')}
     ${flow('f0', 's', 'g')}${flow('f1', 'g', 't')}${flow('f2', 'g', 'c')}`,
    '',
    't',
    /event-based gateway 'g' is followed by task 't'; only catch events and receive tasks may follow it/,
  ],
  [
    'a compensation event cannot be caught mid-flow',
    around(eventWith('intermediateCatchEvent', 't', '<bpmn:compensateEventDefinition/>'), 't'),
    '',
    't',
    /intermediateCatchEvent 't' cannot be a compensate event/,
  ],
  [
    'a conditional event needs a condition',
    around(eventWith('intermediateCatchEvent', 't', '<bpmn:conditionalEventDefinition/>'), 't'),
    '',
    't',
    /conditional event 't' has no condition/,
  ],
  [
    'an eventDefinitionRef naming nothing',
    `<bpmn:startEvent id="s"/><bpmn:endEvent id="e" eventDefinitionRef="nope"/>${flow('f', 's', 'e')}`,
    '',
    'e',
    /eventDefinitionRef of 'e' names 'nope', which is not an event definition of the document/,
  ],
  [
    'link throw without a catch of its name',
    `<bpmn:startEvent id="s"/>${eventWith('intermediateThrowEvent', 't', '<bpmn:linkEventDefinition name="x"/>')}${flow('f0', 's', 't')}`,
    '',
    't',
    /link throw event 't' names 'x', but no link catch event in 'p' has that name/,
  ],
  [
    'link catch in another scope than its throw',
    `<bpmn:startEvent id="s"/>${eventWith('intermediateThrowEvent', 't', '<bpmn:linkEventDefinition name="x"/>')}${flow('f0', 's', 't')}
     <bpmn:subProcess id="sp"><bpmn:startEvent id="ss"/>${eventWith('intermediateCatchEvent', 'c', '<bpmn:linkEventDefinition name="x"/>')}</bpmn:subProcess>${flow('f1', 's', 'sp')}`,
    '',
    't',
    /no link catch event in 'p' has that name/,
  ],
  [
    'two link catches of one name in a scope',
    `<bpmn:startEvent id="s"/>${eventWith('intermediateThrowEvent', 't', '<bpmn:linkEventDefinition name="x"/>')}${flow('f0', 's', 't')}
     ${eventWith('intermediateCatchEvent', 'c1', '<bpmn:linkEventDefinition name="x"/>')}${eventWith('intermediateCatchEvent', 'c2', '<bpmn:linkEventDefinition name="x"/>')}`,
    '',
    'c2',
    /link catch events 'c1' and 'c2' in 'p' share the name 'x'/,
  ],
  [
    'link throw with an outgoing flow',
    around(eventWith('intermediateThrowEvent', 't', '<bpmn:linkEventDefinition name="x"/>'), 't') +
      eventWith('intermediateCatchEvent', 'c', '<bpmn:linkEventDefinition name="x"/>'),
    '',
    't',
    /link throw event 't' must not have outgoing sequence flows/,
  ],
  [
    'link event without a name',
    around(eventWith('intermediateThrowEvent', 't', '<bpmn:linkEventDefinition/>'), 't'),
    '',
    't',
    /link event 't' has no link name/,
  ],
  [
    'a cancel end event outside a transaction',
    `<bpmn:startEvent id="s"/>${eventWith('endEvent', 'e', '<bpmn:cancelEventDefinition/>')}${flow('f', 's', 'e')}`,
    '',
    'e',
    /cancel end event 'e' is only allowed directly inside a transaction/,
  ],
  [
    'a transaction is checked like a sub-process',
    around('<bpmn:transaction id="t"/>', 't'),
    '',
    't',
    /sub-process 't' has no start event/,
  ],
  [
    'unknown BPMN element',
    around('<bpmn:task id="t"/>', 't') + '<bpmn:frobnicator id="x"/>',
    '',
    null,
    /unknown element <bpmn:Frobnicator> \(line \d+, column \d+\)/,
  ],
  [
    'duplicate ids',
    around('<bpmn:task id="t"/>', 't') + '<bpmn:task id="t"/>',
    '',
    't',
    /the id 't' is used more than once/,
  ],
  [
    'more than one none start event',
    `<bpmn:startEvent id="s1"/><bpmn:startEvent id="s2"/><bpmn:endEvent id="e"/>${flow('f1', 's1', 'e')}${flow('f2', 's2', 'e')}`,
    '',
    'p',
    /more than one none start event/,
  ],
  [
    'embedded sub-process without a start event',
    around('<bpmn:subProcess id="t"><bpmn:task id="inner"/></bpmn:subProcess>', 't'),
    '',
    't',
    /sub-process 't' has no start event/,
  ],
  [
    'flow crossing a sub-process boundary',
    around(
      '<bpmn:subProcess id="t"><bpmn:startEvent id="is"/><bpmn:endEvent id="ie"/><bpmn:sequenceFlow id="fi" sourceRef="is" targetRef="ie"/></bpmn:subProcess>',
      't',
    ) + flow('cross', 's', 'ie'),
    '',
    'cross',
    /sequence flow 'cross' crosses the boundary of a sub-process/,
  ],
  [
    'event sub-process start without a trigger',
    around('<bpmn:task id="t"/>', 't') +
      '<bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="es"/></bpmn:subProcess>',
    '',
    'es',
    /start event 'es' of event sub-process 'esp' needs a trigger/,
  ],
  [
    'non-interrupting error boundary event',
    around('<bpmn:task id="t"/>', 't') +
      '<bpmn:boundaryEvent id="b" attachedToRef="t" cancelActivity="false"><bpmn:errorEventDefinition/></bpmn:boundaryEvent>',
    '',
    'b',
    /error boundary event 'b' must interrupt its activity/,
  ],
  [
    'multi-instance without collection or cardinality',
    around('<bpmn:task id="t"><bpmn:multiInstanceLoopCharacteristics/></bpmn:task>', 't'),
    '',
    't',
    /multi-instance 't' has neither an input collection nor a loop cardinality/,
  ],
  [
    'standard loop without a condition or a maximum',
    around('<bpmn:task id="t"><bpmn:standardLoopCharacteristics/></bpmn:task>', 't'),
    '',
    't',
    /standard loop of 't' has neither a loopCondition nor a loopMaximum/,
  ],
  [
    'standard loop condition calling an unknown JUEL function',
    around(
      '<bpmn:task id="t"><bpmn:standardLoopCharacteristics><bpmn:loopCondition>${done()}</bpmn:loopCondition></bpmn:standardLoopCharacteristics></bpmn:task>',
      't',
    ),
    '',
    't',
    /JUEL error in loop condition of 't': Unknown function 'done'/,
  ],
  [
    'a Zeebe message name expression is not supported',
    around(eventWith('intermediateCatchEvent', 't', '<bpmn:messageEventDefinition messageRef="m"/>'), 't'),
    '<bpmn:message id="m" name="=dynamic"/>',
    't',
    /message name of 't' must be a constant/,
  ],
];

void describe('validation problems', () => {
  for (const [name, body, head, elementId, pattern] of cases) {
    void test(name, async () => {
      assertProblem(await compileProblems(definitions(body, head)), elementId, pattern);
    });
  }

  void test('a model with three separate problems reports all three with element ids', async () => {
    const problems = await compileProblems(fixture('three-problems.bpmn'));
    assert.deepEqual(problems, [
      {
        elementId: 'noTopic',
        message: "service task 'noTopic' has no job type (zeebe:taskDefinition or camunda:topic)",
      },
      { elementId: 'G1', message: "adHocSubProcess 'G1' is not supported" },
      { elementId: 'f3', message: "sequence flow 'f3' points to a missing target element" },
    ]);
  });
});

void describe('each problem reported once', () => {
  void test('a refused element does not make its neighbours lack incoming flows', async () => {
    const problems = await compileProblems(
      definitions(
        `<bpmn:startEvent id="s"/><bpmn:adHocSubProcess id="bad"/><bpmn:task id="after"/><bpmn:endEvent id="e"/>
         ${flow('f0', 's', 'bad')}${flow('f1', 'bad', 'after')}${flow('f2', 'after', 'e')}`,
      ),
    );
    assert.deepEqual(problems, [{ elementId: 'bad', message: "adHocSubProcess 'bad' is not supported" }]);
  });
});

void describe('accepted shapes', () => {
  void test('an activity with no outgoing flow is an implicit end', async () => {
    const model = await compileOne(
      definitions(`<bpmn:startEvent id="s"/><bpmn:task id="t"/>${flow('f', 's', 't')}`),
    );
    assert.deepEqual(element(model, 't', 'task').outgoing, []);
  });

  void test('a gateway with a single unconditional outgoing flow needs no condition', async () => {
    const model = await compileOne(
      definitions(
        `<bpmn:startEvent id="s"/><bpmn:exclusiveGateway id="g"/><bpmn:endEvent id="e"/>${flow('f0', 's', 'g')}${flow('f1', 'g', 'e')}`,
      ),
    );
    assert.equal(model.flows.f1?.condition, null);
  });

  void test('timer expressions are FEEL, literals keep their ISO text', async () => {
    const model = await compileOne(
      definitions(around(timerCatch('t', '<bpmn:timeDate>= now() + duration("PT1H")</bpmn:timeDate>'), 't')),
    );
    assert.deepEqual(element(model, 't', 'intermediateCatchEvent').eventDefinition, {
      kind: 'timer',
      timer: { kind: 'date', value: 'now() + duration("PT1H")', isExpression: true },
    });
  });

  void test('a message throw event may be a job without a message name (Zeebe)', async () => {
    const model = await compileOne(
      definitions(
        around(
          eventWith(
            'intermediateThrowEvent',
            't',
            '<bpmn:extensionElements><zeebe:taskDefinition type="notify"/></bpmn:extensionElements><bpmn:messageEventDefinition/>',
          ),
          't',
        ),
      ),
    );
    const definition = element(model, 't', 'intermediateThrowEvent').eventDefinition;
    assert.equal(definition.kind, 'message');
    assert.equal(definition.kind === 'message' ? definition.job?.topic : null, 'notify');
  });
});
