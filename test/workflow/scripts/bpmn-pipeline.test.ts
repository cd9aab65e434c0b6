import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  compileBpmn,
  type ModelProblem,
  type ProcessModel,
} from '../../../src/workflow/engine/model/index.js';
import { pipelineExtension, pipelineOf } from '../../../src/workflow/scripts/bpmn-pipeline.js';
import { runPipeline } from '../../../src/workflow/scripts/pipeline.js';

const extensions = { pipeline: pipelineExtension };

function definitions(taskBody: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:weft="https://weft.dev/schema/bpmn/1.0" id="Defs" targetNamespace="urn:test">
  <bpmn:process id="order" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:scriptTask id="price" name="Price the order">
      <bpmn:extensionElements>${taskBody}</bpmn:extensionElements>
    </bpmn:scriptTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="price" />
    <bpmn:sequenceFlow id="f2" sourceRef="price" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;
}

async function compiled(taskBody: string): Promise<ProcessModel> {
  const result = await compileBpmn(definitions(taskBody), { extensions });
  assert.ok(result.ok, `expected success, got ${JSON.stringify(!result.ok && result.problems)}`);
  const [process] = result.processes;
  assert.ok(process !== undefined);
  return process;
}

async function problems(taskBody: string): Promise<ModelProblem[]> {
  const result = await compileBpmn(definitions(taskBody), { extensions });
  assert.ok(!result.ok, 'expected problems, got a compiled model');
  for (const problem of result.problems) assert.equal(problem.elementId, 'price');
  return result.problems;
}

const documented = `
<weft:pipeline>
  <weft:step name="totals" type="jq"><![CDATA[
{total: ([.lines[] | .qty * .price] | add), big: (([.lines[] | .qty] | add) > 2)}
  ]]></weft:step>
  <weft:step name="gold" type="feel" resultVariable="isGold"><![CDATA[tier = "gold" and total > 10]]></weft:step>
  <weft:step name="discount" type="rhai" resultVariable="net"><![CDATA[
let rate = if isGold { 0.1 } else { 0.0 };
if big && total > 0 { rate += 0.05; }
total * (1.0 - rate)
  ]]></weft:step>
</weft:pipeline>`;

void describe('<weft:pipeline> on a script task', () => {
  void test('implements the script task and turns into ordered steps', async () => {
    const model = await compiled(documented);
    const task = model.elements.price;
    assert.ok(task?.type === 'scriptTask');
    assert.equal(task.implementedBy, 'pipeline');
    const steps = pipelineOf(task);
    assert.deepEqual(steps, [
      {
        name: 'totals',
        type: 'jq',
        expression: '{total: ([.lines[] | .qty * .price] | add), big: (([.lines[] | .qty] | add) > 2)}',
        resultVariable: null,
      },
      {
        name: 'gold',
        type: 'feel',
        expression: 'tier = "gold" and total > 10',
        resultVariable: 'isGold',
      },
      {
        name: 'discount',
        type: 'rhai',
        expression:
          'let rate = if isGold { 0.1 } else { 0.0 };\nif big && total > 0 { rate += 0.05; }\ntotal * (1.0 - rate)',
        resultVariable: 'net',
      },
    ]);
  });

  void test('the documented example runs', async () => {
    const steps = pipelineOf((await compiled(documented)).elements.price ?? { extensions: [] });
    assert.ok(steps !== null);
    const result = await runPipeline(steps, {
      tier: 'gold',
      lines: [
        { qty: 2, price: 10 },
        { qty: 1, price: 5 },
      ],
    });
    assert.ok(result.ok, JSON.stringify(result.steps));
    assert.equal(result.variablesAfter.total, 25);
    assert.equal(result.variablesAfter.isGold, true);
    assert.equal(result.variablesAfter.net, 21.25);
  });

  void test('an element without a pipeline gives null', async () => {
    const model = await compiled(documented);
    assert.equal(pipelineOf(model.elements.start ?? { extensions: [] }), null);
  });

  void test('plain text works where no CDATA is needed, and escaped XML reads as text', async () => {
    const model = await compiled(
      '<weft:pipeline><weft:step name="cmp" type="feel" resultVariable="small">amount &lt; 10</weft:step></weft:pipeline>',
    );
    assert.deepEqual(pipelineOf(model.elements.price ?? { extensions: [] }), [
      { name: 'cmp', type: 'feel', expression: 'amount < 10', resultVariable: 'small' },
    ]);
  });

  void test('an unknown type, a missing name and an empty expression are each reported', async () => {
    const found = await problems(`<weft:pipeline>
      <weft:step name="a" type="python">print(1)</weft:step>
      <weft:step type="jq">{}</weft:step>
      <weft:step name="c" type="rhai"><![CDATA[   ]]></weft:step>
      <weft:step name="d">{}</weft:step>
    </weft:pipeline>`);
    const messages = found.map((p) => p.message);
    const expect = (pattern: RegExp) =>
      assert.ok(
        messages.some((m) => pattern.test(m)),
        `no problem matches ${pattern}: ${JSON.stringify(messages)}`,
      );
    expect(
      /^weft:pipeline of 'price': step 0 \("a"\) has type "python"; the type must be one of jq, feel, rhai$/,
    );
    expect(/step 1 has no name/);
    expect(/step 2 \("c"\) has an empty expression/);
    expect(/step 3 \("d"\) has type ""/);
    assert.equal(found.length, 4);
  });

  void test('a pipeline without steps is a problem', async () => {
    const found = await problems('<weft:pipeline />');
    assert.deepEqual(
      found.map((p) => p.message),
      ["weft:pipeline of 'price': has no <weft:step>"],
    );
  });

  void test('duplicate names, unknown attributes, stray elements and text are problems', async () => {
    const found = await problems(`<weft:pipeline mode="fast">
      <weft:step name="a" type="jq" result_variable="x">{}</weft:step>
      <weft:step name="a" type="jq">{}</weft:step>
      <weft:script>1</weft:script>
      <weft:step name="b" type="feel" resultVariable="">1</weft:step>
    </weft:pipeline>`);
    const messages = found.map((p) => p.message.replace("weft:pipeline of 'price': ", ''));
    assert.deepEqual(messages.sort(), [
      'step 0 ("a") has an unknown attribute \'result_variable\'; use name, type and resultVariable',
      'step 1 ("a") has the same name as an earlier step',
      'step 2 ("b") has an empty resultVariable; leave the attribute out instead',
      'unexpected <weft:script>; only <weft:step>',
      "unknown attribute 'mode'",
    ]);
  });

  void test('more than 50 steps is a problem', async () => {
    const steps = Array.from({ length: 51 }, (_, i) => `<weft:step name="s${i}" type="jq">{}</weft:step>`);
    const found = await problems(`<weft:pipeline>${steps.join('')}</weft:pipeline>`);
    assert.deepEqual(
      found.map((p) => p.message),
      ["weft:pipeline of 'price': has 51 steps; at most 50 are allowed"],
    );
  });

  void test('without a registered pipeline extension a script task with only a pipeline has no script', async () => {
    const result = await compileBpmn(definitions(documented));
    assert.ok(!result.ok);
    assert.match(result.problems[0]?.message ?? '', /script task 'price' has no script/);
  });
});
