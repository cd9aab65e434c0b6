import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { around, assertProblem, compileOne, compileProblems, definitions, element } from './helpers.js';

const userTask = (listeners: string, attributes = '') =>
  definitions(
    around(
      `<bpmn:userTask id="t" ${attributes}><bpmn:extensionElements>${listeners}</bpmn:extensionElements></bpmn:userTask>`,
      't',
    ),
  );
const taskListener = (event: string, body: string, attributes = '') =>
  `<camunda:taskListener event="${event}" ${attributes}>${body}</camunda:taskListener>`;
const js = (text: string, format = 'javascript') =>
  `<camunda:script scriptFormat="${format}"><![CDATA[${text}]]></camunda:script>`;

void describe('Camunda 7 listeners in models', () => {
  void test("the invoice example's JavaScript task listeners are kept in document order", async () => {
    const model = await compileOne(
      userTask(
        taskListener('create', js("if(!!task.getVariable('approver')) {\n  task.setAssignee(approver);\n}")) +
          taskListener('assignment', js("task.setVariable('approver', task.getAssignee());")),
        'camunda:candidateGroups="${approverGroups}"',
      ),
    );
    assert.deepEqual(element(model, 't', 'userTask').listeners, [
      {
        kind: 'task',
        event: 'create',
        expression: null,
        script: "if(!!task.getVariable('approver')) {\n  task.setAssignee(approver);\n}",
      },
      {
        kind: 'task',
        event: 'assignment',
        expression: null,
        script: "task.setVariable('approver', task.getAssignee());",
      },
    ]);
  });

  void test('expression listeners on flow nodes, flows and the process are compiled JUEL', async () => {
    const model = await compileOne(
      definitions(`
        <bpmn:extensionElements><camunda:executionListener event="start" expression="\${execution.setVariable('p', 1)}"/></bpmn:extensionElements>
        <bpmn:startEvent id="s"/>
        <bpmn:task id="t"><bpmn:extensionElements>
          <camunda:executionListener event="start" expression="\${execution.setVariable('a', 1)}"/>
          <camunda:executionListener event="end" expression="\${execution.setVariable('b', 2)}"/>
        </bpmn:extensionElements></bpmn:task>
        <bpmn:endEvent id="e"/>
        <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"><bpmn:extensionElements>
          <camunda:executionListener expression="\${execution.setVariable('c', 3)}"/>
        </bpmn:extensionElements></bpmn:sequenceFlow>
        <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e"/>`),
    );
    assert.deepEqual(model.listeners, [
      {
        kind: 'execution',
        event: 'start',
        expression: "juel:${execution.setVariable('p', 1)}",
        script: null,
      },
    ]);
    assert.deepEqual(
      element(model, 't', 'task').listeners?.map((l) => [l.event, l.expression]),
      [
        ['start', "juel:${execution.setVariable('a', 1)}"],
        ['end', "juel:${execution.setVariable('b', 2)}"],
      ],
    );
    assert.deepEqual(
      model.flows.f1?.listeners?.map((l) => l.event),
      ['take'],
    );
    assert.equal(model.flows.f2?.listeners, undefined);
  });

  void test('JavaScript execution listeners on the process, flow nodes and flows, and JavaScript delete listeners, are kept in document order with the expressions', async () => {
    const model = await compileOne(
      definitions(`
        <bpmn:extensionElements>
          <camunda:executionListener event="end">${js("execution.setVariable('p', 1)")}</camunda:executionListener>
        </bpmn:extensionElements>
        <bpmn:startEvent id="s"/>
        <bpmn:userTask id="t"><bpmn:extensionElements>
          <camunda:executionListener event="start" expression="\${execution.setVariable('a', 1)}"/>
          <camunda:executionListener event="start">${js("execution.setVariable('b', 2)")}</camunda:executionListener>
          ${taskListener('delete', js("task.setVariable('gone', true)"))}
        </bpmn:extensionElements></bpmn:userTask>
        <bpmn:endEvent id="e"/>
        <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"><bpmn:extensionElements>
          <camunda:executionListener>${js("execution.setVariable('c', 3)")}</camunda:executionListener>
        </bpmn:extensionElements></bpmn:sequenceFlow>
        <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e"/>`),
    );
    assert.deepEqual(model.listeners, [
      { kind: 'execution', event: 'end', expression: null, script: "execution.setVariable('p', 1)" },
    ]);
    assert.deepEqual(
      element(model, 't', 'userTask').listeners?.map((l) => [l.kind, l.event, l.expression, l.script]),
      [
        ['execution', 'start', "juel:${execution.setVariable('a', 1)}", null],
        ['execution', 'start', null, "execution.setVariable('b', 2)"],
        ['task', 'delete', null, "task.setVariable('gone', true)"],
      ],
    );
    assert.deepEqual(
      model.flows.f1?.listeners?.map((l) => [l.event, l.script]),
      [['take', "execution.setVariable('c', 3)"]],
    );
  });

  const refusals: [string, string, RegExp][] = [
    [
      'the update event',
      taskListener('update', js('x')),
      /camunda:taskListener \(event 'update'\) of 't' is not supported/,
    ],
    [
      'the timeout event',
      taskListener('timeout', js('x')),
      /\(event 'timeout'\) of 't' is not supported: .*timer boundary event/,
    ],
    ['an unknown event', taskListener('later', js('x')), /\(event 'later'\) of 't' names an unknown event/],
    [
      'a Groovy script',
      taskListener('create', js('x', 'groovy')),
      /is written in 'groovy', which weft cannot run/,
    ],
    [
      'a script resource',
      taskListener('create', '<camunda:script scriptFormat="javascript" resource="a.js"/>'),
      /loads its script from a resource/,
    ],
    [
      'field injection',
      taskListener('create', `<camunda:field name="x" stringValue="1"/>${js('x')}`),
      /injects camunda:field values, which only Java class listeners read/,
    ],
    ['an empty listener', taskListener('create', ''), /has neither an expression nor a script/],
    [
      'an expression that is not JUEL',
      taskListener('create', '', 'expression="approver"'),
      /has the expression 'approver', which is not a JUEL expression/,
    ],
    [
      'a JUEL expression that does not compile',
      taskListener('create', '', 'expression="${a +}"'),
      /JUEL error in camunda:taskListener \(event 'create'\) of 't'/,
    ],
    [
      'a take event on a task',
      '<camunda:executionListener event="take" expression="${x}"/>',
      /\(event 'take'\) of 't' names an event that does not happen there; expected start or end/,
    ],
  ];
  for (const [what, listener, pattern] of refusals) {
    void test(`${what} is refused with one problem naming the task`, async () => {
      const problems = await compileProblems(userTask(listener));
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assertProblem(problems, 't', pattern);
    });
  }

  void test('a task listener on a service task is refused', async () => {
    assertProblem(
      await compileProblems(
        definitions(
          around(
            `<bpmn:serviceTask id="t" camunda:type="external" camunda:topic="x"><bpmn:extensionElements>${taskListener('create', js('x'))}</bpmn:extensionElements></bpmn:serviceTask>`,
            't',
          ),
        ),
      ),
      't',
      /camunda:taskListener \(event 'create'\) of 't' is on an element that is not a user task/,
    );
  });
});
