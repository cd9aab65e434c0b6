import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { around, assertProblem, compileOne, compileProblems, definitions, element } from './helpers.js';

const callActivity = (attributes: string, extensions = '') =>
  definitions(
    around(
      `<bpmn:callActivity id="c" ${attributes}>${
        extensions === '' ? '' : `<bpmn:extensionElements>${extensions}</bpmn:extensionElements>`
      }</bpmn:callActivity>`,
      'c',
    ),
  );

const ruleTask = (attributes: string, extensions = '') =>
  definitions(
    around(
      `<bpmn:businessRuleTask id="d" ${attributes}>${
        extensions === '' ? '' : `<bpmn:extensionElements>${extensions}</bpmn:extensionElements>`
      }</bpmn:businessRuleTask>`,
      'd',
    ),
  );

void describe('called element and decision reference given by an expression', () => {
  test('a JUEL calledElement and calledElementVersion are kept as marked expressions, without a key', async () => {
    const model = await compileOne(
      callActivity(
        'calledElement="${processToCall}" camunda:calledElementBinding="version" camunda:calledElementVersion="${childVersion}"',
      ),
    );
    assert.deepEqual(element(model, 'c', 'callActivity').calledElement, {
      processKey: null,
      processKeyExpression: 'juel:${processToCall}',
      binding: 'version',
      version: null,
      versionExpression: 'juel:${childVersion}',
      propagateAllChildVariables: true,
      propagateAllParentVariables: true,
    });
  });

  test('JUEL text around an expression (invoice-${region}) is an expression too', async () => {
    const model = await compileOne(callActivity('calledElement="invoice-${region}"'));
    const called = element(model, 'c', 'callActivity').calledElement;
    assert.equal(called.processKey, null);
    assert.equal(called.processKeyExpression, 'juel:invoice-${region}');
  });

  test('a Zeebe processId written as FEEL (=…) is kept as FEEL text', async () => {
    const model = await compileOne(
      callActivity('', '<zeebe:calledElement processId="= &quot;child-&quot; + region" />'),
    );
    const called = element(model, 'c', 'callActivity').calledElement;
    assert.equal(called.processKey, null);
    assert.equal(called.processKeyExpression, '"child-" + region');
  });

  test('a constant called element and version stay constants, without expression fields', async () => {
    const model = await compileOne(
      callActivity(
        'calledElement="child" camunda:calledElementBinding="version" camunda:calledElementVersion="2"',
      ),
    );
    const called = element(model, 'c', 'callActivity').calledElement;
    assert.equal(called.processKey, 'child');
    assert.equal(called.version, '2');
    assert.equal('processKeyExpression' in called, false);
    assert.equal('versionExpression' in called, false);
  });

  test('a JUEL decisionRef and decisionRefVersion are kept as marked expressions, without a key', async () => {
    const model = await compileOne(
      ruleTask(
        'camunda:decisionRef="${region}" camunda:decisionRefBinding="version" camunda:decisionRefVersion="#{pinned}" camunda:resultVariable="r"',
      ),
    );
    assert.deepEqual(element(model, 'd', 'businessRuleTask').decision, {
      decisionId: null,
      decisionIdExpression: 'juel:${region}',
      binding: 'version',
      version: null,
      versionExpression: 'juel:#{pinned}',
      mapDecisionResult: 'resultList',
      resultVariable: 'r',
    });
  });

  test('a Zeebe decisionId written as FEEL (=…) is kept as FEEL text', async () => {
    const model = await compileOne(
      ruleTask('', '<zeebe:calledDecision decisionId="=decisionKey" resultVariable="r" />'),
    );
    const decision = element(model, 'd', 'businessRuleTask').decision;
    assert.equal(decision?.decisionId, null);
    assert.equal(decision?.decisionIdExpression, 'decisionKey');
  });

  test('a version expression under binding versionTag stays the tag as written', async () => {
    const model = await compileOne(
      ruleTask(
        'camunda:decisionRef="letters" camunda:decisionRefBinding="versionTag" camunda:decisionRefVersionTag="${tag}"',
      ),
    );
    const decision = element(model, 'd', 'businessRuleTask').decision;
    assert.equal(decision?.version, '${tag}');
    assert.equal(decision !== null && 'versionExpression' in decision, false);
  });

  const refused: [string, string, string, RegExp][] = [
    [
      'a calledElement calling a Java method',
      callActivity('calledElement="${resolver.processFor(execution)}"'),
      'c',
      /JUEL error in called element of 'c': Method 'processFor' is not allowed in expressions .*\$\{resolver\.processFor\(execution\)\}/,
    ],
    [
      'a decisionRef calling a Java method',
      ruleTask('camunda:decisionRef="${rules.pick(region)}"'),
      'd',
      /JUEL error in decision reference of 'd': Method 'pick' is not allowed in expressions .*\$\{rules\.pick\(region\)\}/,
    ],
    [
      'a calledElementVersion calling a Java method',
      callActivity(
        'calledElement="child" camunda:calledElementBinding="version" camunda:calledElementVersion="${versions.latest()}"',
      ),
      'c',
      /JUEL error in called element version of 'c': Method 'latest' is not allowed in expressions/,
    ],
    [
      'a decisionRefVersion calling a Java method',
      ruleTask(
        'camunda:decisionRef="letters" camunda:decisionRefBinding="version" camunda:decisionRefVersion="${versions.latest()}"',
      ),
      'd',
      /JUEL error in decision version of 'd': Method 'latest' is not allowed in expressions/,
    ],
    [
      'a Zeebe processId with a FEEL syntax error',
      callActivity('', '<zeebe:calledElement processId="= region +" />'),
      'c',
      /FEEL syntax error in called element of 'c'/,
    ],
    ['an empty called element', callActivity('calledElement=" "'), 'c', /called element of 'c' is empty/],
  ];
  for (const [name, xml, elementId, pattern] of refused) {
    test(`refused: ${name}`, async () => {
      assertProblem(await compileProblems(xml), elementId, pattern);
    });
  }
});
