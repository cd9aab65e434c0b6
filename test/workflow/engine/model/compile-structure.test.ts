import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileBpmn } from '../../../../src/workflow/engine/model/index.js';
import { assertProblem, compileOne, compileProblems, definitions, element, fixture } from './helpers.js';

const pipeline = { pipeline: { implements: ['scriptTask' as const] } };

void describe('collaboration with pools (collaboration.bpmn)', async () => {
  const model = await compileOne(fixture('collaboration.bpmn'), { extensions: pipeline });

  void test('only the executable process is compiled', () => {
    assert.equal(model.processKey, 'shop');
    assert.equal(model.elements.boStart, undefined);
  });

  void test('message flows touching the process are kept as data', () => {
    assert.deepEqual(model.messageFlows, [
      {
        id: 'mf1',
        name: null,
        sourceRef: 'CustomerPool',
        targetRef: 'askStart',
        sourceProcessKey: null,
        targetProcessKey: 'shop',
        messageName: 'quote',
      },
      {
        id: 'mf2',
        name: null,
        sourceRef: 'notify',
        targetRef: 'BackOfficePool',
        sourceProcessKey: 'shop',
        targetProcessKey: 'backoffice',
        messageName: null,
      },
    ]);
    assert.deepEqual(model.startEventIds.message, ['askStart']);
  });

  void test('embedded sub-process: children, start event, parent ids, scoped flows', () => {
    const sub = element(model, 'prepare', 'subProcess');
    assert.equal(sub.triggeredByEvent, false);
    assert.deepEqual(sub.childIds, ['prepareStart', 'collect', 'prepareEnd']);
    assert.deepEqual(sub.startEventIds, ['prepareStart']);
    assert.equal(element(model, 'collect', 'task').parentId, 'prepare');
    assert.deepEqual(sub.boundaryEventIds, ['prepareFailed']);
    assert.ok(!model.childIds.includes('collect'));
    assert.deepEqual(model.flows.p1, {
      id: 'p1',
      name: null,
      sourceId: 'prepareStart',
      targetId: 'collect',
      condition: null,
      isDefault: false,
    });
  });

  void test('an error boundary event without an error reference catches all errors', () => {
    assert.deepEqual(element(model, 'prepareFailed', 'boundaryEvent').eventDefinition, {
      kind: 'error',
      errorCode: null,
      errorName: null,
    });
  });

  void test('weft extension elements are kept raw and can implement a script task', () => {
    const task = element(model, 'transform', 'scriptTask');
    assert.equal(task.implementedBy, 'pipeline');
    assert.deepEqual(task.script, { format: 'jq', text: '.items' });
    assert.deepEqual(task.extensions, [
      {
        name: 'pipeline',
        attributes: {},
        children: [{ name: 'step', attributes: { kind: 'jq' }, children: [], text: '.items | length' }],
        text: null,
      },
    ]);
    assert.deepEqual(model.extensions, [
      { name: 'settings', attributes: { owner: 'sales' }, children: [], text: null },
    ]);
  });

  void test('pass-through elements: none throw event, manual task, terminate end', () => {
    assert.deepEqual(element(model, 'notify', 'intermediateThrowEvent').eventDefinition, { kind: 'none' });
    assert.equal(element(model, 'pack', 'manualTask').multiInstance, null);
    assert.deepEqual(element(model, 'failed', 'endEvent').eventDefinition, { kind: 'terminate' });
  });
});

void describe('extensions', () => {
  void test('without a registered pipeline a non-FEEL script task is a problem', async () => {
    const problems = await compileProblems(fixture('collaboration.bpmn'));
    assert.deepEqual(problems, [
      {
        elementId: 'transform',
        message:
          'script task \'transform\' is written in \'jq\', which weft cannot run: write it in JavaScript (scriptFormat="javascript") or FEEL, as a <weft:pipeline> of jq, FEEL and Rhai steps, or make it an external task (camunda:type="external" camunda:topic="…") and run it in a worker',
      },
    ]);
  });

  void test('an extension validator reports problems with the element id', async () => {
    const problems = await compileProblems(fixture('collaboration.bpmn'), {
      extensions: {
        pipeline: {
          implements: ['scriptTask'],
          validate: (raw) => (raw.children.length > 0 ? ['too many steps'] : []),
        },
      },
    });
    assertProblem(problems, 'transform', /weft:pipeline of 'transform': too many steps/);
  });

  void test('a weft extension can implement a service task instead of a topic', async () => {
    const xml = definitions(
      `<bpmn:startEvent id="s"/><bpmn:serviceTask id="call"><bpmn:extensionElements><weft:http url="https://example.test"/></bpmn:extensionElements></bpmn:serviceTask>
       <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="call"/>`,
    );
    assertProblem(await compileProblems(xml), 'call', /has no job type/);
    const model = await compileOne(xml, { extensions: { http: { implements: ['serviceTask'] } } });
    const task = element(model, 'call', 'serviceTask');
    assert.equal(task.implementedBy, 'http');
    assert.equal(task.job, null);
    assert.deepEqual(task.extensions[0]?.attributes, { url: 'https://example.test' });
  });
});

void describe('namespaces', () => {
  void test('vendor attributes are matched by namespace URI, not by prefix', async () => {
    const xml = `<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
      xmlns:cam="http://camunda.org/schema/1.0/bpmn" xmlns:camunda="urn:not-camunda" id="d" targetNamespace="t">
      <bpmn:process id="p" isExecutable="true">
        <bpmn:startEvent id="s"/>
        <bpmn:serviceTask id="t" cam:type="external" cam:topic="real" camunda:topic="decoy"/>
        <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="t"/>
      </bpmn:process></bpmn:definitions>`;
    assert.equal(element(await compileOne(xml), 't', 'serviceTask').job?.topic, 'real');
  });

  void test('extension validators also check the process element', async () => {
    const problems = await compileProblems(fixture('collaboration.bpmn'), {
      extensions: {
        ...pipeline,
        settings: { validate: (raw) => (raw.attributes.owner === 'sales' ? ['no sales'] : []) },
      },
    });
    assert.deepEqual(problems, [{ elementId: 'shop', message: "weft:settings of 'shop': no sales" }]);
  });
});

void describe('which processes are executable', () => {
  const process = (id: string, flag: string) =>
    `<bpmn:process id="${id}" ${flag}><bpmn:startEvent id="${id}_s"/></bpmn:process>`;
  const doc = (body: string) =>
    `<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">${body}</bpmn:definitions>`;

  void test('a single process without the flag is executable', async () => {
    const result = await compileBpmn(doc(process('only', '')));
    assert.ok(result.ok);
    assert.deepEqual(
      result.processes.map((p) => p.processKey),
      ['only'],
    );
  });

  void test('every process marked executable is compiled, others are skipped', async () => {
    const result = await compileBpmn(
      doc(
        process('a', 'isExecutable="true"') +
          process('b', 'isExecutable="false"') +
          process('c', 'isExecutable="true"'),
      ),
    );
    assert.ok(result.ok);
    assert.deepEqual(
      result.processes.map((p) => p.processKey),
      ['a', 'c'],
    );
  });

  void test('several processes, none marked, is a problem', async () => {
    const problems = await compileProblems(doc(process('a', '') + process('b', '')));
    assert.deepEqual(problems, [
      { elementId: null, message: 'none of the 2 processes is marked isExecutable="true"' },
    ]);
  });

  void test('a document without a process is a problem', async () => {
    assert.deepEqual(await compileProblems(doc('')), [
      { elementId: null, message: 'the document has no process' },
    ]);
  });
});
