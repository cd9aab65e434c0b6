import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JuelContext } from '../../../src/lib/juel/index.js';
import { contextWith, evaluationError, valueOf } from './helpers.js';

const written: [string, unknown][] = [];
const context: JuelContext = contextWith(
  { x: 'from scope', amount: 12, nothing: null },
  {
    execution: {
      id: 'exec-1',
      processInstanceId: 'pi-1',
      processBusinessKey: 'order-7',
      processDefinitionId: 'invoice:2:abc',
      activityId: 'approveInvoice',
      activityName: 'Approve Invoice',
      tenantId: 'acme',
      localVariables: { loop: 3 },
      setVariable: (name, value) => written.push([name, value]),
    },
    task: {
      id: 'task-9',
      name: 'Approve',
      assignee: 'demo',
      priority: 50,
      dueDate: new Date('2025-01-02T00:00:00.000Z'),
      localVariables: { comment: 'ok' },
    },
    currentUser: 'demo',
    currentUserGroups: ['accounting', 'management'],
  },
);

const TABLE: readonly (readonly [string, unknown])[] = [
  ["${execution.getVariable('x')}", 'from scope'],
  ["${execution.getVariable('missing')}", null],
  ["${execution.getVariableLocal('loop')}", 3],
  ["${execution.getVariableLocal('x')}", null],
  ["${execution.hasVariable('x')}", true],
  ["${execution.hasVariable('nothing')}", true],
  ["${execution.hasVariable('missing')}", false],
  ["${execution.hasVariableLocal('loop')}", true],
  ['${execution.getVariables().amount}', 12],
  ['${execution.processBusinessKey}', 'order-7'],
  ['${execution == execution}', true],
  ['${task == task}', true],
  ['${execution.businessKey}', 'order-7'],
  ['${execution.getProcessBusinessKey()}', 'order-7'],
  ['${execution.processInstanceId}', 'pi-1'],
  ['${execution.id}', 'exec-1'],
  ['${execution.activityId}', 'approveInvoice'],
  ['${execution.currentActivityId}', 'approveInvoice'],
  ['${execution.getCurrentActivityId()}', 'approveInvoice'],
  ['${execution.currentActivityName}', 'Approve Invoice'],
  ['${execution.processDefinitionId}', 'invoice:2:abc'],
  ['${execution.tenantId}', 'acme'],
  ["${execution['processBusinessKey']}", 'order-7'],
  ['${task.assignee}', 'demo'],
  ['${task.getAssignee()}', 'demo'],
  ['${task.id}', 'task-9'],
  ['${task.name}', 'Approve'],
  ['${task.priority + 1}', 51],
  ['${task.owner}', null],
  ["${task.getVariable('comment')}", 'ok'],
  ["${task.getVariable('x')}", 'from scope'],
  ["${task.getVariableLocal('x')}", null],
  ['${currentUser()}', 'demo'],
  ['${authenticatedUserId}', 'demo'],
  ['${currentUserGroups()}', ['accounting', 'management']],
  ["${currentUserGroups().contains('accounting')}", true],
  ['${now()}', new Date('2025-01-01T10:00:00.000Z')],
  ['${dateTime().toDate()}', new Date('2025-01-01T10:00:00.000Z')],
  ['${dateTime().plusWeeks(1).toDate()}', new Date('2025-01-08T10:00:00.000Z')],
  ['${dateTime().plusDays(2).plusHours(3).toDate()}', new Date('2025-01-03T13:00:00.000Z')],
  ['${dateTime().plusMinutes(30).plusSeconds(15).toDate()}', new Date('2025-01-01T10:30:15.000Z')],
  ['${dateTime().plusMonths(1).toDate()}', new Date('2025-02-01T10:00:00.000Z')],
  ['${dateTime().plusYears(1).toDate()}', new Date('2026-01-01T10:00:00.000Z')],
  ['${dateTime().minusDays(1).toDate()}', new Date('2024-12-31T10:00:00.000Z')],
  ['${dateTime().minusMonths(2).toDate()}', new Date('2024-11-01T10:00:00.000Z')],
  ['${dateTime().plusDays(amount).toDate()}', new Date('2025-01-13T10:00:00.000Z')],
  ['${dateTime().plusWeeks(1)}', new Date('2025-01-08T10:00:00.000Z')],
  ['${dateTime().toString()}', '2025-01-01T10:00:00.000Z'],
  ['${dateTime().plusHours(1).getMillis()}', Date.parse('2025-01-01T11:00:00.000Z')],
  ['${dateTime().getYear()}', 2025],
  ['${dateTime().getMonthOfYear()}', 1],
  ['${dateTime().getDayOfWeek()}', 3],
  ['${dateTime().withTimeAtStartOfDay().toDate()}', new Date('2025-01-01T00:00:00.000Z')],
  ['${dateTime().plusDays(1).isAfter(dateTime())}', true],
  ['${dateTime().isBefore(now())}', false],
  ['${dateTime().plusDays(1) > dateTime()}', true],
  ['${task.dueDate < dateTime().plusDays(2).toDate()}', true],
  ['due ${dateTime().plusDays(1)}', 'due 2025-01-02T10:00:00.000Z'],
];

describe('JUEL execution, task and built-in functions', () => {
  for (const [text, value] of TABLE) {
    test(`${text} is ${JSON.stringify(value)}`, () => {
      assert.deepEqual(valueOf(text, context), value);
    });
  }

  test('plusMonths keeps the day of month, clamped to the end of a shorter month', () => {
    const endOfJanuary = contextWith({}, { clock: () => new Date('2024-01-31T08:00:00.000Z') });
    assert.deepEqual(
      valueOf('${dateTime().plusMonths(1).toDate()}', endOfJanuary),
      new Date('2024-02-29T08:00:00.000Z'),
    );
    assert.deepEqual(
      valueOf('${dateTime().plusYears(1).plusMonths(1).toDate()}', endOfJanuary),
      new Date('2025-02-28T08:00:00.000Z'),
    );
  });

  test('the clock is read at each evaluation, never Date.now()', () => {
    let now = new Date('2030-06-01T00:00:00.000Z');
    const moving = contextWith({}, { clock: () => now });
    assert.deepEqual(valueOf('${now()}', moving), new Date('2030-06-01T00:00:00.000Z'));
    now = new Date('2030-06-02T00:00:00.000Z');
    assert.deepEqual(valueOf('${now()}', moving), new Date('2030-06-02T00:00:00.000Z'));
  });

  test('execution.setVariable calls the host and gives null; Longs are handed over as numbers', () => {
    written.length = 0;
    assert.equal(valueOf("${execution.setVariable('total', amount * 2)}", context), null);
    assert.deepEqual(written, [['total', 24]]);
  });

  test('without a host setter, setVariable is an evaluation error', () => {
    const plain = contextWith({}, { execution: { id: 'e' } });
    assert.match(evaluationError("${execution.setVariable('a', 1)}", plain), /setVariable is not available/);
  });

  test('without a user, currentUser() and currentUserGroups() are null', () => {
    const anonymous = contextWith({});
    assert.equal(valueOf('${currentUser()}', anonymous), null);
    assert.equal(valueOf('${currentUserGroups()}', anonymous), null);
    assert.equal(valueOf('${authenticatedUserId}', anonymous), null);
  });

  test('without an execution in the context, `execution` is an ordinary (here unknown) identifier', () => {
    assert.match(
      evaluationError('${execution.id}', contextWith({})),
      /Cannot resolve identifier 'execution'/,
    );
  });

  test('an unknown property of execution or task is an error', () => {
    assert.match(
      evaluationError('${execution.processEngineServices}', context),
      /Property 'processEngineServices' not found on execution/,
    );
    assert.match(evaluationError('${task.execution}', context), /not found on task/);
  });

  test('the execution object itself is not a value', () => {
    assert.match(evaluationError('${execution}', context), /execution object itself/i);
  });

  test('a host callback that throws becomes an error result', () => {
    const failing = contextWith(
      {},
      {
        execution: {
          setVariable: () => {
            throw new Error('store is read-only');
          },
        },
      },
    );
    assert.match(evaluationError("${execution.setVariable('a', 1)}", failing), /store is read-only/);
  });
});
