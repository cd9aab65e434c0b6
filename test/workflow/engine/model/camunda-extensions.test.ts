import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertProblem, compileOne, compileProblems, definitions, element } from './helpers.js';

// An element between a none start and an end, as a process of its own.
const around = (body: string, id: string) =>
  definitions(`
    <bpmn:startEvent id="start" />
    <bpmn:sequenceFlow id="in" sourceRef="start" targetRef="${id}" />
    ${body}
    <bpmn:sequenceFlow id="out" sourceRef="${id}" targetRef="end" />
    <bpmn:endEvent id="end" />`);

// camunda:initiator, camunda:in businessKey, and camunda:list / camunda:map parameters.
void describe('Camunda 7 extensions: initiator, called business key, list and map parameters', () => {
  test('camunda:initiator is kept on the start event; a start event without it has none', async () => {
    const model = await compileOne(
      definitions(
        `
        <bpmn:startEvent id="s" camunda:initiator="starter" />
        <bpmn:startEvent id="m"><bpmn:messageEventDefinition messageRef="kick" /></bpmn:startEvent>`,
        '<bpmn:message id="kick" name="kick" />',
      ),
    );
    assert.equal(element(model, 's', 'startEvent').initiator, 'starter');
    assert.equal('initiator' in element(model, 'm', 'startEvent'), false);
  });

  test('camunda:in businessKey keeps JUEL marked and a constant as a FEEL string', async () => {
    const call = (key: string) =>
      around(
        `<bpmn:callActivity id="c" calledElement="child">
          <bpmn:extensionElements>
            <camunda:in businessKey="${key}" />
            <camunda:in source="a" target="b" />
          </bpmn:extensionElements>
        </bpmn:callActivity>`,
        'c',
      );
    const juel = element(await compileOne(call('${execution.processBusinessKey}')), 'c', 'callActivity');
    assert.equal(juel.calledElement.businessKey, 'juel:${execution.processBusinessKey}');
    assert.deepEqual(juel.inputs, [{ target: 'b', expression: 'a' }]);
    const constant = element(await compileOne(call('fixed-key')), 'c', 'callActivity');
    assert.equal(constant.calledElement.businessKey, '"fixed-key"');
  });

  test('a call activity without camunda:in businessKey has no business key expression', async () => {
    const model = await compileOne(around('<bpmn:callActivity id="c" calledElement="child" />', 'c'));
    assert.equal('businessKey' in element(model, 'c', 'callActivity').calledElement, false);
  });

  test('a bad JUEL business key is a deploy problem naming the call activity', async () => {
    const problems = await compileProblems(
      around(
        `<bpmn:callActivity id="c" calledElement="child">
          <bpmn:extensionElements><camunda:in businessKey="\${key ==}" /></bpmn:extensionElements>
        </bpmn:callActivity>`,
        'c',
      ),
    );
    assertProblem(problems, 'c', /JUEL error in business key of 'c'/);
  });

  test('camunda:list and camunda:map become structured values: constants, JUEL, FEEL scripts, null and nesting', async () => {
    const model = await compileOne(
      around(
        `<bpmn:task id="t">
          <bpmn:extensionElements>
            <camunda:inputOutput>
              <camunda:inputParameter name="colors">
                <camunda:list>
                  <camunda:value>red</camunda:value>
                  <camunda:value>\${favourite}</camunda:value>
                  <camunda:value></camunda:value>
                  <camunda:script scriptFormat="feel">1 + 1</camunda:script>
                  <camunda:list><camunda:value>inner</camunda:value></camunda:list>
                </camunda:list>
              </camunda:inputParameter>
              <camunda:outputParameter name="order">
                <camunda:map>
                  <camunda:entry key="note">fixed</camunda:entry>
                  <camunda:entry key="amount">\${amount}</camunda:entry>
                  <camunda:entry key="tags"><camunda:list><camunda:value>a</camunda:value></camunda:list></camunda:entry>
                  <camunda:entry key="nested"><camunda:map><camunda:entry key="x">1</camunda:entry></camunda:map></camunda:entry>
                </camunda:map>
              </camunda:outputParameter>
            </camunda:inputOutput>
          </bpmn:extensionElements>
        </bpmn:task>`,
        't',
      ),
    );
    const task = element(model, 't', 'task');
    assert.deepEqual(task.inputs, [
      {
        target: 'colors',
        expression: { list: ['"red"', 'juel:${favourite}', 'null', '1 + 1', { list: ['"inner"'] }] },
      },
    ]);
    assert.deepEqual(task.outputs, [
      {
        target: 'order',
        expression: {
          map: [
            { key: 'note', value: '"fixed"' },
            { key: 'amount', value: 'juel:${amount}' },
            { key: 'tags', value: { list: ['"a"'] } },
            { key: 'nested', value: { map: [{ key: 'x', value: '"1"' }] } },
          ],
        },
      },
    ]);
    assert.deepEqual(JSON.parse(JSON.stringify(task.inputs)) as unknown, task.inputs, 'plain JSON');
  });

  test('an empty camunda:list and camunda:map are an empty list and an empty map', async () => {
    const model = await compileOne(
      around(
        `<bpmn:task id="t">
          <bpmn:extensionElements>
            <camunda:inputOutput>
              <camunda:inputParameter name="none"><camunda:list /></camunda:inputParameter>
              <camunda:inputParameter name="empty"><camunda:map /></camunda:inputParameter>
            </camunda:inputOutput>
          </bpmn:extensionElements>
        </bpmn:task>`,
        't',
      ),
    );
    assert.deepEqual(element(model, 't', 'task').inputs, [
      { target: 'none', expression: { list: [] } },
      { target: 'empty', expression: { map: [] } },
    ]);
  });

  test('inside a list or a map: bad JUEL, a JavaScript script, an entry without a key and an expression key are problems', async () => {
    const problems = await compileProblems(
      around(
        `<bpmn:task id="t">
          <bpmn:extensionElements>
            <camunda:inputOutput>
              <camunda:inputParameter name="a">
                <camunda:list><camunda:value>\${x ==}</camunda:value></camunda:list>
              </camunda:inputParameter>
              <camunda:inputParameter name="b">
                <camunda:list><camunda:script scriptFormat="javascript">1</camunda:script></camunda:list>
              </camunda:inputParameter>
              <camunda:inputParameter name="c">
                <camunda:map><camunda:entry>1</camunda:entry></camunda:map>
              </camunda:inputParameter>
              <camunda:inputParameter name="d">
                <camunda:map><camunda:entry key="\${k}">1</camunda:entry></camunda:map>
              </camunda:inputParameter>
            </camunda:inputOutput>
          </bpmn:extensionElements>
        </bpmn:task>`,
        't',
      ),
    );
    assertProblem(problems, 't', /JUEL error in inputParameter 'a' of 't'/);
    assertProblem(problems, 't', /camunda:script in inputParameter 'b' of 't' is not supported/);
    assertProblem(
      problems,
      't',
      /camunda:map in inputParameter 'c' of 't' holds a camunda:entry without a key/,
    );
    assertProblem(
      problems,
      't',
      /the key '\$\{k\}' of a camunda:entry in inputParameter 'd' of 't' is an expression/,
    );
  });
});

void describe('camunda:historyTimeToLive', () => {
  const withTimeToLive = (value: string) =>
    definitions('<bpmn:startEvent id="s" />').replace(
      '<bpmn:process id="p" isExecutable="true">',
      `<bpmn:process id="p" isExecutable="true" camunda:historyTimeToLive="${value}">`,
    );

  test('is read as whole days, written as a number or as an ISO 8601 duration in days', async () => {
    assert.equal((await compileOne(withTimeToLive('5'))).historyTimeToLive, 5);
    assert.equal((await compileOne(withTimeToLive('P30D'))).historyTimeToLive, 30);
    assert.equal((await compileOne(withTimeToLive('0'))).historyTimeToLive, 0);
    assert.equal((await compileOne(withTimeToLive('2147483647'))).historyTimeToLive, 2147483647);
  });

  test('absent or empty, the process has none (the global retention applies)', async () => {
    assert.equal('historyTimeToLive' in (await compileOne(definitions('<bpmn:startEvent id="s" />'))), false);
    assert.equal('historyTimeToLive' in (await compileOne(withTimeToLive(''))), false);
  });

  for (const value of ['-1', 'P1W', 'PT12H', 'P1.5D', '1.5', 'five', '${days}', '2147483648']) {
    test(`'${value}' is a deploy problem naming the process`, async () => {
      assertProblem(
        await compileProblems(withTimeToLive(value)),
        'p',
        /camunda:historyTimeToLive of process 'p'/,
      );
    });
  }
});
