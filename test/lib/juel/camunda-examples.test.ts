import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileJuel, isJuelText, juelVariableNames } from '../../../src/lib/juel/index.js';
import { contextWith, evaluationError, valueOf } from './helpers.js';

describe("Camunda 7's invoice example expressions", () => {
  test('the approval and review gateways: ${approved}, ${!approved}, ${clarified}, ${!clarified}', () => {
    for (const approved of [true, false]) {
      const context = contextWith({ approved, clarified: !approved });
      assert.equal(valueOf('${approved}', context), approved);
      assert.equal(valueOf('${!approved}', context), !approved);
      assert.equal(valueOf('${clarified}', context), !approved);
      assert.equal(valueOf('${!clarified}', context), approved);
    }
  });

  test('a form that submitted the decision as text still routes (EL coerces "true" to Boolean)', () => {
    assert.equal(valueOf('${!approved}', contextWith({ approved: 'true' })), false);
    assert.equal(valueOf("${clarified == 'yes'}", contextWith({ clarified: 'yes' })), true);
    assert.equal(valueOf("${clarified == 'yes'}", contextWith({ clarified: 'no' })), false);
  });

  test('the due dates: ${dateTime().plusWeeks(1).toDate()} is a week after the clock', () => {
    assert.deepEqual(
      valueOf('${dateTime().plusWeeks(1).toDate()}', contextWith({})),
      new Date('2025-01-08T10:00:00.000Z'),
    );
  });

  test('candidate groups from the collectEntries decision result: ${approverGroups} is the list itself', () => {
    const context = contextWith({ approverGroups: ['accounting', 'sales'], candidateGroups: 'management' });
    assert.deepEqual(valueOf('${approverGroups}', context), ['accounting', 'sales']);
    assert.equal(valueOf('${candidateGroups}', context), 'management');
  });

  test('an unset decision variable is the error Camunda raises, not a silent false', () => {
    assert.match(
      evaluationError('${approved}', contextWith({})),
      /Unknown property used in expression: \$\{approved\}/,
    );
  });

  test('the amount and category conditions of the decision-like gateways', () => {
    const context = contextWith({
      amount: 1200.5,
      invoiceCategory: 'Travel Expenses',
      creditor: 'Great Pizza for Everyone Inc.',
    });
    assert.equal(valueOf('${amount > 1000}', context), true);
    assert.equal(valueOf("${invoiceCategory == 'Travel Expenses' && amount <= 1500}", context), true);
    assert.equal(valueOf("${creditor.contains('Pizza')}", context), true);
    assert.equal(
      valueOf('Invoice from ${creditor} over ${amount}', context),
      'Invoice from Great Pizza for Everyone Inc. over 1200.5',
    );
  });

  test('the expressions the model holds are recognised, and plain attribute values are not', () => {
    assert.equal(isJuelText('${approved}'), true);
    assert.equal(isJuelText('#{approverGroups}'), true);
    assert.equal(isJuelText('accounting'), false);
    assert.equal(isJuelText('cost: \\${amount}'), false);
    assert.equal(isJuelText('$ {x} #x {y}'), false);
    assert.equal(isJuelText('a \\${b} ${c}'), true);
  });
});

describe('compiled texts', () => {
  test('say whether they are literal or a single expression', () => {
    const literal = compileJuel('accounting');
    const single = compileJuel('${approverGroups}');
    const composite = compileJuel('group-${name}');
    assert.ok(literal.ok && single.ok && composite.ok);
    assert.equal(literal.expression.isLiteral, true);
    assert.equal(single.expression.isSingleExpression, true);
    assert.equal(composite.expression.isLiteral, false);
    assert.equal(composite.expression.isSingleExpression, false);
  });

  test('list the variables they read, built-ins aside', () => {
    const compiled = compileJuel(
      "${amount > 1000 && approver != null ? a.b[key] : execution.getVariable('other')} ${task.assignee} ${authenticatedUserId} ${dateTime().plusDays(days)}",
    );
    assert.ok(compiled.ok);
    assert.deepEqual(juelVariableNames(compiled.expression), [
      'amount',
      'approver',
      'a',
      'key',
      'other',
      'days',
    ]);
  });
});
