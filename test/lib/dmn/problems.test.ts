import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileDmn, DmnValidationError, parseDmn } from '../../../src/lib/dmn/index.js';
import { definitions, inputData, literalDecision, tableXml } from './dmn-fixtures.js';

describe('model problems', () => {
  test('every problem is reported at once, each with its element id', () => {
    const xml = definitions(`
      <decision id="d1" name="Bad Table">${tableXml({ hitPolicy: 'SOMETIMES', inputs: ['x'], outputs: [{ name: 'r' }], rules: [[['[1..'], ['1 +']]] })}</decision>
      ${literalDecision('d2', 'Missing Ref', 'a', { inputs: ['nowhere'] })}
      <decision id="d3" name="No Name Logic"><literalExpression><text>  </text></literalExpression></decision>`);
    const { problems } = parseDmn(xml);
    const text = problems.map((p) => `${p.elementId}: ${p.message}`);
    assert.ok(
      text.some((t) => t.startsWith("table: unknown hit policy 'SOMETIMES'")),
      text.join('\n'),
    );
    assert.ok(
      text.some((t) => /^table_r0: rule 1 input entry '\[1\.\.': FEEL syntax error/.test(t)),
      text.join('\n'),
    );
    assert.ok(
      text.some((t) => /^table_r0: rule 1 output entry '1 \+': FEEL syntax error/.test(t)),
      text.join('\n'),
    );
    assert.ok(text.includes("d2: required input data 'nowhere' does not exist"), text.join('\n'));
    assert.ok(text.includes('d3: literal expression has no text'), text.join('\n'));
    assert.equal(problems.length, 5);
  });

  test('circular requirements are detected and named', () => {
    const xml = definitions(`
      ${literalDecision('a', 'A', 'B + 1', { decisions: ['b'] })}
      ${literalDecision('b', 'B', 'C + 1', { decisions: ['c'] })}
      ${literalDecision('c', 'C', 'A + 1', { decisions: ['a'] })}
      ${literalDecision('d', 'D', 'A', { decisions: ['a'] })}`);
    const { problems } = parseDmn(xml);
    assert.deepEqual(problems, [
      { elementId: 'a', message: 'circular requirement between decisions: A → B → C → A' },
    ]);
  });

  test('a model with problems cannot be compiled; the error carries the problems', () => {
    const xml = definitions(
      `<decision id="d" name="D">${tableXml({ hitPolicy: 'MOSTLY', inputs: ['x'], outputs: [{ name: 'r' }], rules: [[['1', '2'], ['3']]] })}</decision>`,
    );
    assert.throws(
      () => compileDmn(xml),
      (err: unknown) =>
        err instanceof DmnValidationError &&
        err.problems.length === 2 &&
        err.problems.some((p) => p.message === "unknown hit policy 'MOSTLY'") &&
        err.problems.some((p) => p.message === 'rule 1 has 2 input entries for 1 inputs') &&
        /DMN model has 2 problem\(s\)/.test(err.message),
    );
  });

  test('a DOCTYPE (entity expansion) is refused before parsing', () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>${definitions(inputData('i', '&b;'))}`;
    const { problems, definitions: model } = parseDmn(xml);
    assert.deepEqual(problems, [
      { elementId: null, message: 'a DOCTYPE declaration is not allowed in a DMN document' },
    ]);
    assert.equal(model.inputData.length, 0);
  });

  test('text that is not DMN is a problem, not a crash', () => {
    assert.ok(parseDmn('<html><body/></html>').problems.length > 0);
    assert.ok(parseDmn('not xml at all').problems.length > 0);
  });

  test('unsupported constructs are problems: external functions, imports, unknown elements', () => {
    const xml = definitions(`
      <import namespace="urn:other" name="other" importType="https://www.omg.org/spec/DMN/20191111/MODEL/"/>
      <businessKnowledgeModel id="b" name="B"><encapsulatedLogic kind="Java"><context/></encapsulatedLogic></businessKnowledgeModel>`);
    const messages = parseDmn(xml).problems.map((p) => p.message);
    assert.ok(messages.includes('imports of other models are not supported'), messages.join('\n'));
    assert.ok(messages.includes("function kind 'Java' is not supported (only FEEL)"), messages.join('\n'));
  });

  test('DMN 1.2 and 1.5 namespaces are read like DMN 1.3', () => {
    for (const ns of [
      'http://www.omg.org/spec/DMN/20180521/MODEL/',
      'https://www.omg.org/spec/DMN/20230324/MODEL/',
    ]) {
      const xml = definitions(literalDecision('d', 'D', '1 + 1')).replace(
        'https://www.omg.org/spec/DMN/20191111/MODEL/',
        ns,
      );
      const { problems, definitions: model } = parseDmn(xml);
      assert.deepEqual(problems, []);
      assert.equal(model.decisions[0]?.name, 'D');
    }
  });
});
