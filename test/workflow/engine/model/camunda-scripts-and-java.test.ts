import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { around, assertProblem, compileOne, compileProblems, definitions, element } from './helpers.js';

const scriptTask = (format: string, script: string, attributes = '') =>
  definitions(
    around(
      `<bpmn:scriptTask id="t" scriptFormat="${format}" ${attributes}><bpmn:script><![CDATA[${script}]]></bpmn:script></bpmn:scriptTask>`,
      't',
    ),
  );

void describe('Camunda 7 script tasks', () => {
  for (const format of ['javascript', 'JavaScript', 'js', 'ecmascript', 'ECMAScript']) {
    void test(`scriptFormat="${format}" compiles to a JavaScript script with its result variable`, async () => {
      const model = await compileOne(
        scriptTask(format, "execution.setVariable('a', 1);\nx < 2", 'camunda:resultVariable="small"'),
      );
      const task = element(model, 't', 'scriptTask');
      assert.deepEqual(task.script, { format: 'javascript', text: "execution.setVariable('a', 1);\nx < 2" });
      assert.equal(task.resultVariable, 'small');
    });
  }

  for (const format of ['groovy', 'python', 'ruby', 'juel', 'freemarker']) {
    void test(`scriptFormat="${format}" is refused with one problem naming the task and the format`, async () => {
      const problems = await compileProblems(scriptTask(format, 'x = 1'));
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assertProblem(
        problems,
        't',
        new RegExp(
          `script task 't' is written in '${format}', which weft cannot run: write it in JavaScript \\(scriptFormat="javascript"\\) or FEEL, .* or make it an external task`,
        ),
      );
    });
  }

  void test('a JavaScript script over 65536 characters is refused', async () => {
    assertProblem(
      await compileProblems(scriptTask('javascript', `// ${'x'.repeat(65_536)}`)),
      't',
      /the script of 't' is over 65536 characters/,
    );
  });

  void test('a Groovy script on a task that is an external task is not looked at', async () => {
    const model = await compileOne(
      scriptTask('groovy', 'x = 1', 'camunda:type="external" camunda:topic="groovy-work"'),
    );
    assert.equal(element(model, 't', 'scriptTask').job?.topic, 'groovy-work');
  });
});

void describe('Camunda 7 Java-only parts are refused at deploy', () => {
  const external = /make it an external task \(camunda:type="external" camunda:topic="…"\)/;
  const cases: [string, string, string, RegExp][] = [
    [
      'a service task with camunda:class',
      '<bpmn:serviceTask id="t" camunda:class="com.example.Charge"/>',
      'service task',
      /service task 't' uses camunda:class, which is not supported: weft runs no Java code/,
    ],
    [
      'a service task with a bean as camunda:delegateExpression',
      '<bpmn:serviceTask id="t" camunda:delegateExpression="${chargeDelegate}"/>',
      'service task',
      /service task 't' uses camunda:delegateExpression, which is not supported: weft has no Java \(or Spring\) beans/,
    ],
    [
      'a service task calling a bean method with camunda:expression',
      '<bpmn:serviceTask id="t" camunda:expression="${paymentService.charge(execution)}"/>',
      'service task',
      /service task 't' uses camunda:expression, which is not supported: an expression that calls a method of a Java \(or Spring\) bean cannot run in weft/,
    ],
    [
      'a send task with camunda:class, even with a message',
      '<bpmn:sendTask id="t" camunda:class="com.example.Notify" messageRef="m"/>',
      'send task',
      /send task 't' uses camunda:class, which is not supported/,
    ],
    [
      'a business rule task with camunda:delegateExpression',
      '<bpmn:businessRuleTask id="t" camunda:delegateExpression="${rules}"/>',
      'business rule task',
      /business rule task 't' uses camunda:delegateExpression, which is not supported/,
    ],
  ];
  for (const [name, task, , pattern] of cases) {
    void test(`${name}: one problem naming the element and suggesting an external task`, async () => {
      const problems = await compileProblems(
        definitions(around(task, 't'), '<bpmn:message id="m" name="note"/>'),
      );
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assertProblem(problems, 't', pattern);
      assertProblem(problems, 't', external);
    });
  }

  void test('camunda:connector is refused, pointing at the weft HTTP connector', async () => {
    const problems = await compileProblems(
      definitions(
        around(
          `<bpmn:serviceTask id="t"><bpmn:extensionElements><camunda:connector><camunda:connectorId>http-connector</camunda:connectorId></camunda:connector></bpmn:extensionElements></bpmn:serviceTask>`,
          't',
        ),
      ),
    );
    assert.equal(problems.length, 1);
    assertProblem(
      problems,
      't',
      /service task 't' uses camunda:connector, which is not supported: .*<weft:httpConnector>/,
    );
  });

  void test('Java execution and task listeners are refused, one problem each, naming their element', async () => {
    const listener = (kind: string, event: string, attribute: string) =>
      `<bpmn:extensionElements><camunda:${kind} event="${event}" ${attribute}/></bpmn:extensionElements>`;
    const xml = definitions(
      `${listener('executionListener', 'start', 'class="com.example.ProcessStart"')}
       <bpmn:startEvent id="s"/>
       <bpmn:userTask id="review">${listener('taskListener', 'create', 'delegateExpression="${assigner}"')}</bpmn:userTask>
       <bpmn:endEvent id="e"/>
       <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="review"/>
       <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="e">${listener('executionListener', 'take', 'class="com.example.Audit"')}</bpmn:sequenceFlow>`,
    );
    const problems = await compileProblems(xml);
    assert.equal(problems.length, 3, JSON.stringify(problems));
    assertProblem(
      problems,
      'p',
      /camunda:executionListener \(event 'start'\) of 'p' is the Java class 'com.example.ProcessStart', which is not supported/,
    );
    assertProblem(
      problems,
      'review',
      /camunda:taskListener \(event 'create'\) of 'review' is the delegate expression '\$\{assigner\}', which is not supported/,
    );
    assertProblem(
      problems,
      'f2',
      /camunda:executionListener \(event 'take'\) of 'f2' is the Java class 'com.example.Audit'.*external task/,
    );
  });

  void test('listeners written as an expression or a script are not refused as Java', async () => {
    await compileOne(
      definitions(
        around(
          `<bpmn:userTask id="t"><bpmn:extensionElements>
             <camunda:taskListener event="create"><camunda:script scriptFormat="javascript">task.setAssignee('ada')</camunda:script></camunda:taskListener>
           </bpmn:extensionElements></bpmn:userTask>`,
          't',
        ),
      ),
    );
  });

  void test('a call activity with a Java variable mapping is refused', async () => {
    assertProblem(
      await compileProblems(
        definitions(
          around(
            '<bpmn:callActivity id="t" calledElement="child" camunda:variableMappingClass="com.example.Map"/>',
            't',
          ),
        ),
      ),
      't',
      /call activity 't' uses camunda:variableMappingClass, which is not supported: .*camunda:in and camunda:out/,
    );
  });
});
