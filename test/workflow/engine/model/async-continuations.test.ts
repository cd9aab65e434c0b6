import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileBpmn, type ProcessModel } from '../../../../src/workflow/engine/model/index.js';

const process = (task: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/>
    ${task}
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
  </bpmn:process>
</bpmn:definitions>`;

const retryCycle = (cycle: string) =>
  `<bpmn:task id="t" camunda:asyncBefore="true"><bpmn:extensionElements><camunda:failedJobRetryTimeCycle>${cycle}</camunda:failedJobRetryTimeCycle></bpmn:extensionElements></bpmn:task>`;

async function element(task: string) {
  const result = await compileBpmn(process(task));
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  return (result.processes[0] as ProcessModel).elements.t;
}

async function problems(task: string): Promise<string[]> {
  const result = await compileBpmn(process(task));
  assert.ok(!result.ok, 'refused');
  return result.problems.map((problem) => problem.message);
}

void describe('asynchronous continuations in the model', () => {
  void test('asyncBefore, asyncAfter and the older async are read; an element without them has none', async () => {
    assert.deepEqual((await element('<bpmn:task id="t" camunda:asyncBefore="true"/>'))?.async, {
      before: true,
      after: false,
      instanceBefore: false,
      instanceAfter: false,
    });
    assert.equal(
      (await element('<bpmn:task id="t" camunda:async="true" camunda:asyncAfter="true"/>'))?.async?.after,
      true,
    );
    assert.equal((await element('<bpmn:task id="t" camunda:async="true"/>'))?.async?.before, true);
    assert.equal((await element('<bpmn:task id="t" camunda:asyncBefore="false"/>'))?.async, undefined);
    assert.equal((await element('<bpmn:task id="t"/>'))?.async, undefined);
  });

  void test('the flags of multi-instance loop characteristics apply to each instance', async () => {
    const async = (
      await element(
        '<bpmn:task id="t"><bpmn:multiInstanceLoopCharacteristics camunda:asyncAfter="true"><bpmn:loopCardinality>2</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics></bpmn:task>',
      )
    )?.async;
    assert.deepEqual(async, { before: false, after: false, instanceBefore: false, instanceAfter: true });
  });

  void test('a flag that is neither true nor false is refused naming the element', async () => {
    assert.deepEqual(await problems('<bpmn:task id="t" camunda:asyncBefore="yes"/>'), [
      "camunda:asyncBefore of 't' must be true or false, not 'yes'",
    ]);
  });

  void test('failedJobRetryTimeCycle: R<n>/<duration> gives n retries, a list one retry per interval', async () => {
    assert.deepEqual((await element(retryCycle('R5/PT5M')))?.jobRetry, {
      retries: 5,
      intervalsMs: [300_000],
    });
    assert.deepEqual((await element(retryCycle(' PT1M, PT10M,P1D ')))?.jobRetry, {
      retries: 3,
      intervalsMs: [60_000, 600_000, 86_400_000],
    });
    assert.deepEqual((await element(retryCycle('R0/PT1S')))?.jobRetry, { retries: 0, intervalsMs: [1_000] });
  });

  void test('failedJobRetryTimeCycle: expressions, bad durations, empty cycles and huge ones are refused', async () => {
    const [expression] = await problems(retryCycle('${cycle}'));
    assert.match(expression ?? '', /failedJobRetryTimeCycle '\$\{cycle\}' of 't' is an expression/);
    const [bad] = await problems(retryCycle('R3/5 minutes'));
    assert.match(bad ?? '', /'5 minutes' is not a duration/);
    const [empty] = await problems(retryCycle(''));
    assert.match(empty ?? '', /is empty/);
    const [many] = await problems(retryCycle('R1000/PT1S'));
    assert.match(many ?? '', /more than 100 retries/);
    const [long] = await problems(retryCycle('P2Y'));
    assert.match(long ?? '', /more than a year/);
  });
});
