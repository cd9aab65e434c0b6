import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileBpmn } from '../../../../src/workflow/engine/model/index.js';
import { assertProblem, compileOne, compileProblems, definitions } from './helpers.js';

const withGlobalScript = (attributes: string, script: string) =>
  definitions(
    `<bpmn:startEvent id="s"/><bpmn:callActivity id="c" calledElement="g"/><bpmn:sequenceFlow id="f" sourceRef="s" targetRef="c"/>`,
    `<bpmn:globalScriptTask id="g" ${attributes}><bpmn:script>${script}</bpmn:script></bpmn:globalScriptTask>`,
  );

void describe('global script tasks', () => {
  void test('a global script task with a <script> child compiles into a callable process of its own', async () => {
    const result = await compileBpmn(
      withGlobalScript('scriptLanguage="feel" camunda:resultVariable="r"', 'x + 1'),
    );
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    const callable = result.processes.find((process) => process.processKey === 'g');
    assert.ok(callable !== undefined);
    assert.deepEqual(callable.startEventIds.none, ['g_start']);
    const task = callable.elements.g_script;
    assert.equal(task?.type, 'scriptTask');
    assert.deepEqual(task?.type === 'scriptTask' && [task.script, task.resultVariable], [
      { format: 'feel', text: 'x + 1' },
      'r',
    ]);
  });

  void test('a global script task in another language than FEEL or JavaScript is a problem naming it', async () => {
    assertProblem(
      await compileProblems(withGlobalScript('scriptLanguage="groovy"', 'x + 1')),
      'g',
      /global script task 'g' is written in 'groovy', which weft cannot run/,
    );
  });

  void test('a global script task in JavaScript compiles', async () => {
    const result = await compileBpmn(withGlobalScript('scriptLanguage="javascript"', 'x + 1'));
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    const task = result.processes.find((process) => process.processKey === 'g')?.elements.g_script;
    assert.deepEqual(task?.type === 'scriptTask' && task.script, { format: 'javascript', text: 'x + 1' });
  });
});

void describe('instantiating receive tasks', () => {
  void test('a top-level receive task with instantiate="true" and no incoming flow is a message start', async () => {
    const model = await compileOne(
      definitions(
        `<bpmn:receiveTask id="r" instantiate="true" messageRef="m"/><bpmn:task id="t"/><bpmn:sequenceFlow id="f" sourceRef="r" targetRef="t"/>`,
        '<bpmn:message id="m" name="go"/>',
      ),
    );
    assert.deepEqual(model.startEventIds.message, ['r']);
    const receive = model.elements.r;
    assert.deepEqual(receive?.type === 'receiveTask' && receive.eventDefinition, {
      kind: 'message',
      messageName: 'go',
      correlationKey: null,
      job: null,
    });
  });

  void test('without instantiate a receive task alone still leaves the process with no start event', async () => {
    assertProblem(
      await compileProblems(
        definitions(`<bpmn:receiveTask id="r" messageRef="m"/>`, '<bpmn:message id="m" name="go"/>'),
      ),
      'p',
      /process 'p' has no start event/,
    );
  });
});
