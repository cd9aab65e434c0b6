import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileDmn,
  DmnEvaluationError,
  evaluateDecision,
  evaluateDecisionService,
} from '../../../src/lib/dmn/index.js';
import { definitions, inputData, literalDecision, tableXml } from './dmn-fixtures.js';

const bkm = `<businessKnowledgeModel id="b_fee" name="Fee">
  <encapsulatedLogic><formalParameter name="amount" typeRef="number"/><formalParameter name="rate" typeRef="number"/>
    <literalExpression><text>amount * rate</text></literalExpression></encapsulatedLogic></businessKnowledgeModel>`;

const model = definitions(`
  ${inputData('i_amount', 'Loan Amount', 'number')}
  ${inputData('i_risk', 'Risk', 'string')}
  <decision id="d_rate" name="Rate">
    <informationRequirement><requiredInput href="#i_risk"/></informationRequirement>
    ${tableXml(
      {
        inputs: ['Risk'],
        outputs: [{ name: 'rate' }],
        rules: [
          [['"low"'], ['0.01']],
          [['"high"'], ['0.05']],
        ],
      },
      't_rate',
    )}
  </decision>
  ${literalDecision('d_fee', 'Fee Due', 'Fee(Loan Amount, Rate)', {
    decisions: ['d_rate'],
    inputs: ['i_amount'],
    knowledge: ['b_fee'],
  })}
  <decision id="d_boxed" name="Boxed Fee">
    <informationRequirement><requiredInput href="#i_amount"/></informationRequirement>
    <knowledgeRequirement><requiredKnowledge href="#b_fee"/></knowledgeRequirement>
    <invocation><literalExpression><text>Fee</text></literalExpression>
      <binding><parameter name="amount"/><literalExpression><text>Loan Amount</text></literalExpression></binding>
      <binding><parameter name="rate"/><literalExpression><text>0.1</text></literalExpression></binding>
    </invocation>
  </decision>
  <decision id="d_summary" name="Summary">
    <informationRequirement><requiredDecision href="#d_fee"/></informationRequirement>
    <informationRequirement><requiredDecision href="#d_rate"/></informationRequirement>
    <context>
      <contextEntry><variable name="fee"/><literalExpression><text>Fee Due</text></literalExpression></contextEntry>
      <contextEntry><variable name="double"/><literalExpression><text>fee * 2</text></literalExpression></contextEntry>
      <contextEntry><variable name="tags"/><list>
        <literalExpression><text>"rate " + string(Rate)</text></literalExpression>
        <literalExpression><text>"ok"</text></literalExpression></list></contextEntry>
    </context>
  </decision>
  <decisionService id="s_fee" name="Fee Service">
    <outputDecision href="#d_fee"/><encapsulatedDecision href="#d_rate"/>
    <inputData href="#i_amount"/><inputData href="#i_risk"/>
  </decisionService>
  ${bkm}`);

describe('decision requirements graph', () => {
  const compiled = compileDmn(model);

  test('a decision evaluates the decisions it requires and calls the BKM as a FEEL function', () => {
    const { result, matchedRules } = evaluateDecision(compiled, 'Fee Due', {
      'Loan Amount': 1000,
      Risk: 'high',
    });
    assert.equal(result, 50);
    assert.deepEqual(matchedRules, [
      { decisionId: 'd_rate', decisionName: 'Rate', ruleId: 't_rate_r1', ruleIndex: 1 },
    ]);
  });

  test('decisions are found by id as well as by name', () => {
    assert.equal(evaluateDecision(compiled, 'd_fee', { 'Loan Amount': 200, Risk: 'low' }).result, 2);
  });

  test('a boxed invocation binds BKM parameters by name', () => {
    assert.equal(evaluateDecision(compiled, 'Boxed Fee', { 'Loan Amount': 30 }).result, 3);
  });

  test('contexts and lists evaluate entries in order, later entries seeing earlier ones', () => {
    const { result } = evaluateDecision(compiled, 'Summary', { 'Loan Amount': 100, Risk: 'high' });
    assert.deepEqual(result, { fee: 5, double: 10, tags: ['rate 0.05', 'ok'] });
  });

  test('a decision service returns its output decisions by name', () => {
    const { result } = evaluateDecisionService(compiled, 'Fee Service', { 'Loan Amount': 100, Risk: 'low' });
    assert.deepEqual(result, { 'Fee Due': 1 });
  });

  test('each decision lists its id, name and the input data it needs transitively', () => {
    const byName = Object.fromEntries(compiled.decisions.map((d) => [d.name, d]));
    assert.deepEqual(byName['Fee Due'], {
      id: 'd_fee',
      name: 'Fee Due',
      requiredInputs: ['Loan Amount', 'Risk'],
    });
    assert.deepEqual(byName['Rate']?.requiredInputs, ['Risk']);
    assert.equal(compiled.decisions.length, 4);
  });

  test('a missing required input is an error naming the decision and input', () => {
    assert.throws(
      () => evaluateDecision(compiled, 'Fee Due', { 'Loan Amount': 100 }),
      (err: unknown) =>
        err instanceof DmnEvaluationError &&
        err.decisionId === 'd_rate' &&
        /required input 'Risk' was not provided/.test(err.message),
    );
    const relaxed = evaluateDecision(compiled, 'Rate', {}, { strict: false });
    assert.equal(relaxed.result, null);
  });

  test('an input that does not match its typeRef is refused (strict) or null (spec semantics)', () => {
    assert.throws(
      () => evaluateDecision(compiled, 'Boxed Fee', { 'Loan Amount': 'lots' }),
      /does not conform/,
    );
    const relaxed = evaluateDecision(compiled, 'Rate', { Risk: 42 }, { strict: false });
    assert.equal(relaxed.result, null);
  });

  test('an unknown decision key is an evaluation error', () => {
    assert.throws(() => evaluateDecision(compiled, 'Nope', {}), /no decision with id or name 'Nope'/);
  });

  test('a table without input data reads the caller variables directly', () => {
    const free = compileDmn(
      definitions(
        `<decision id="d" name="Route">${tableXml({
          inputs: ['order.total'],
          outputs: [{ name: 'r' }],
          rules: [
            [['> 10'], ['"big"']],
            [['<= 10'], ['"small"']],
          ],
        })}</decision>`,
      ),
    );
    assert.equal(evaluateDecision(free, 'Route', { order: { total: 12 } }).result, 'big');
    assert.throws(() => evaluateDecision(free, 'Route', {}), /input expression 'order.total' failed/);
  });
});

describe('a decision service invoked as a FEEL function (DMN 1.5 10.4)', () => {
  const serviceModel = definitions(`
    ${inputData('i_x', 'x', 'string')}
    ${literalDecision('d_echo', 'echo', 'x + "!"', { inputs: ['i_x'] })}
    <decisionService id="s_echo" name="Echo"><outputDecision href="#d_echo"/><inputData href="#i_x"/></decisionService>
    ${literalDecision('d_ok', 'ok', 'Echo("hi")', { knowledge: ['s_echo'] })}
    ${literalDecision('d_wrong_type', 'wrong type', 'Echo(123)', { knowledge: ['s_echo'] })}
    ${literalDecision('d_no_args', 'no args', 'Echo()', { knowledge: ['s_echo'] })}
    ${literalDecision('d_too_many', 'too many', 'Echo("a", "b")', { knowledge: ['s_echo'] })}
  `);
  const compiled = compileDmn(serviceModel);
  const run = (name: string): unknown => evaluateDecision(compiled, name, {}, { strict: false }).result;

  test('its single output decision is the value of the call', () => {
    assert.equal(run('ok'), 'hi!');
  });

  test('an argument that does not conform to its parameter type, or the wrong count, gives null', () => {
    assert.equal(run('wrong type'), null);
    assert.equal(run('no args'), null);
    assert.equal(run('too many'), null);
  });
});
