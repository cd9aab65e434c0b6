import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileDmn, evaluateDecision, parseDmn } from '../../../src/lib/dmn/index.js';
import { definitions, literalDecision, tableModel, tableXml, type TableSpec } from './dmn-fixtures.js';

// Two habits of Camunda 7's DMN engine that its models rely on (Camunda's invoice example needs
// both): an empty input entry matches anything, and a decision sees the output names of the
// decision tables it requires, not only their decision names.

const requiring = (required: TableSpec, text: string) =>
  compileDmn(
    definitions(`
      <decision id="classify" name="Invoice Classification">${tableXml(required, 't_classify')}</decision>
      ${literalDecision('use', 'Use', text, { decisions: ['classify'] })}`),
  );

describe("Camunda 7's DMN habits", () => {
  test('an empty input entry matches any input, null included', () => {
    const dmn = compileDmn(
      tableModel({
        inputs: ['amount', 'category'],
        outputs: [{ name: 'class' }],
        rules: [
          [['< 250', '"Misc"'], ['"small"']],
          [['', '"Travel"'], ['"travel"']],
          [['   ', '   '], ['"other"']],
        ],
        hitPolicy: 'FIRST',
      }),
    );
    const decide = (amount: unknown, category: unknown) =>
      evaluateDecision(dmn, 'd', { amount, category }).result;
    assert.equal(decide(300, 'Travel'), 'travel');
    assert.equal(decide(null, 'Travel'), 'travel');
    assert.equal(decide(10, 'Misc'), 'small');
    assert.equal(decide(300, 'Misc'), 'other');
    assert.equal(decide('x', null), 'other');
  });

  test('a single result of a required table binds its output names to the values', () => {
    const dmn = requiring(
      {
        inputs: ['amount'],
        outputs: [{ name: 'invoiceClassification' }, { name: 'approvers' }],
        rules: [[['-'], ['"budget"', '2']]],
      },
      'invoiceClassification + " by " + string(approvers) + " (" + Invoice Classification.invoiceClassification + ")"',
    );
    assert.equal(evaluateDecision(dmn, 'use', { amount: 1 }).result, 'budget by 2 (budget)');
  });

  test('the results of a COLLECT or RULE ORDER table bind each output name to a list', () => {
    for (const hitPolicy of ['COLLECT', 'RULE ORDER']) {
      const spec: TableSpec = {
        hitPolicy,
        inputs: ['amount'],
        outputs: [{ name: 'group' }],
        rules: [
          [['> 0'], ['"accounting"']],
          [['> 100'], ['"sales"']],
        ],
      };
      const dmn = requiring(spec, 'group');
      assert.deepEqual(
        evaluateDecision(dmn, 'use', { amount: 500 }).result,
        ['accounting', 'sales'],
        hitPolicy,
      );
      assert.deepEqual(evaluateDecision(dmn, 'use', { amount: 50 }).result, ['accounting'], hitPolicy);
    }
  });

  test('a required table without a result binds nothing; with one, its outputs win over caller variables', () => {
    const dmn = requiring(
      { inputs: ['amount'], outputs: [{ name: 'group' }], rules: [[['> 100'], ['"sales"']]] },
      'if group = null then "none from " + string(amount) else group',
    );
    // No result: the caller's own `group` stays visible.
    assert.equal(evaluateDecision(dmn, 'use', { amount: 5, group: 'caller' }).result, 'caller');
    // A result: the required decision's output wins over the caller's variable, as in Camunda.
    assert.equal(evaluateDecision(dmn, 'use', { amount: 500, group: 'caller' }).result, 'sales');
  });

  test('camunda:historyTimeToLive is read as whole days, whatever the prefix; other values are problems', () => {
    const withTimeToLive = (attributes: string) =>
      parseDmn(
        definitions(
          literalDecision('d', 'D', '1').replace('<decision id="d"', `<decision ${attributes} id="d"`),
        ).replace('<definitions ', '<definitions xmlns:camunda="http://camunda.org/schema/1.0/dmn" '),
      );
    const decision = (attributes: string) => withTimeToLive(attributes).definitions.decisions[0];
    assert.equal(decision('camunda:historyTimeToLive="180"')?.historyTimeToLive, 180);
    assert.equal(decision('camunda:historyTimeToLive="P5D"')?.historyTimeToLive, 5);
    assert.equal(
      decision('xmlns:k="http://camunda.org/schema/1.0/dmn" k:historyTimeToLive="0"')?.historyTimeToLive,
      0,
    );
    assert.equal('historyTimeToLive' in (decision('camunda:historyTimeToLive=""') ?? {}), false);
    assert.equal(
      'historyTimeToLive' in (decision('xmlns:o="urn:other" o:historyTimeToLive="5"') ?? {}),
      false,
      'another namespace is not Camunda',
    );
    for (const bad of ['-1', 'P1W', '${ttl}', '2147483648'])
      assert.deepEqual(withTimeToLive(`camunda:historyTimeToLive="${bad}"`).problems, [
        {
          elementId: 'd',
          message: `camunda:historyTimeToLive of decision 'd' is '${bad}': it must be a whole number of days from 0 to 2147483647, written as 5 or P5D`,
        },
      ]);
  });
});
