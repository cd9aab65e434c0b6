import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { JUEL_METHODS } from '../../../src/lib/juel/index.js';
import { contextWith, evaluationError, valueOf } from './helpers.js';

const context = contextWith({
  s: '  Hello World  ',
  word: 'invoice',
  csv: 'a,b,,c,,',
  list: ['a', 'b', 'a'],
  numbers: [1, 2, 3],
  map: { k: 'v', n: 1 },
  long: 5,
  double: 2.75,
  flag: true,
  when: new Date('2025-03-01T00:00:00.000Z'),
  nothing: null,
});

const TABLE: readonly (readonly [string, unknown])[] = [
  // String
  ["${word.contains('voi')}", true],
  ["${word.startsWith('in')}", true],
  ["${word.startsWith('vo', 2)}", true],
  ["${word.startsWith('', 8)}", false],
  ["${word.endsWith('ice')}", true],
  ["${word.equals('invoice')}", true],
  ['${word.equals(1)}', false],
  ["${word.equalsIgnoreCase('INVOICE')}", true],
  ['${word.equalsIgnoreCase(nothing)}', false],
  ['${word.isEmpty()}', false],
  ['${word.length()}', 7],
  ['${word.toUpperCase()}', 'INVOICE'],
  ["${'ABC'.toLowerCase()}", 'abc'],
  ['${s.trim()}', 'Hello World'],
  ['${word.substring(2)}', 'voice'],
  ['${word.substring(0, 2)}', 'in'],
  ["${word.substring('1', '3')}", 'nv'],
  ["${word.indexOf('o')}", 3],
  ["${word.indexOf('i', 1)}", 4],
  ["${word.lastIndexOf('i')}", 4],
  ["${word.indexOf('z')}", -1],
  ["${word.replace('i', 'I')}", 'InvoIce'],
  ["${'a$b'.replace('$', '\\\\')}", 'a\\b'],
  ["${'abc'.replace('', '-')}", '-a-b-c-'],
  ["${word.replaceAll('[aeiou]', '_')}", '_nv__c_'],
  ["${word.replaceAll('(o)(i)', '$2$1')}", 'invioce'],
  ["${word.replaceFirst('i', 'I')}", 'Invoice'],
  ["${word.matches('inv.*')}", true],
  ["${word.matches('voice')}", false],
  ["${csv.split(',')}", ['a', 'b', '', 'c']],
  ["${csv.split(',', -1)}", ['a', 'b', '', 'c', '', '']],
  ["${csv.split(',').size()}", 4],
  ['${word.charAt(0)}', 'i'],
  ["${word.concat('-').concat(1)}", 'invoice-1'],
  ['${word.toString()}', 'invoice'],
  ["${word['length']()}", 7],
  // List
  ['${list.size()}', 3],
  ['${list.isEmpty()}', false],
  ["${list.contains('b')}", true],
  ["${list.contains('z')}", false],
  ['${numbers.contains(2)}', true],
  ["${numbers.contains('2')}", false],
  ['${list.get(1)}', 'b'],
  ["${list.indexOf('a')}", 0],
  ["${list.lastIndexOf('a')}", 2],
  ['${numbers.toString()}', '[1,2,3]'],
  ['${numbers.equals(numbers)}', true],
  // Map
  ['${map.size()}', 2],
  ['${map.isEmpty()}', false],
  ["${map.containsKey('k')}", true],
  ["${map.containsKey('z')}", false],
  ["${map.containsValue('v')}", true],
  ["${map.get('k')}", 'v'],
  ["${map.get('z')}", null],
  ['${map.keySet()}', ['k', 'n']],
  ['${map.values()}', ['v', 1]],
  ["${map.keySet().contains('n')}", true],
  // numbers and booleans
  ['${long.intValue()}', 5],
  ['${double.intValue()}', 2],
  ['${double.longValue()}', 2],
  ['${long.doubleValue()}', 5],
  ['${long.doubleValue().toString()}', '5.0'],
  ['${long.toString()}', '5'],
  ['${double.toString()}', '2.75'],
  ['${long.equals(5)}', true],
  ['${long.equals(5.0)}', false],
  ['${flag.booleanValue()}', true],
  ['${flag.toString()}', 'true'],
  // Date
  ['${when.getTime()}', 1740787200000],
  ['${when.toString()}', '2025-03-01T00:00:00.000Z'],
  ['${when.before(now())}', false],
  ['${when.after(now())}', true],
];

describe('JUEL allowed methods', () => {
  for (const [text, value] of TABLE) {
    test(`${text} is ${JSON.stringify(value)}`, () => {
      assert.deepEqual(valueOf(text, context), value);
    });
  }

  test('a method the receiver type lacks is an evaluation error naming the method and type', () => {
    assert.match(evaluationError('${word.size()}', context), /Method size\(\) not found on type String/);
    assert.match(evaluationError('${list.length()}', context), /Method length\(\) not found on type List/);
    assert.match(evaluationError("${map.startsWith('x')}", context), /not found on type Map/);
  });

  test('a wrong number of arguments is an evaluation error', () => {
    assert.match(evaluationError('${word.substring()}', context), /takes 1 or 2 argument\(s\), not 0/);
    assert.match(evaluationError('${list.size(1)}', context), /takes 0 argument\(s\), not 1/);
  });

  test('out-of-range indexes of methods are errors (unlike [] access)', () => {
    assert.match(evaluationError('${list.get(5)}', context), /index 5 is out of bounds for length 3/);
    assert.match(evaluationError('${word.charAt(-1)}', context), /out of bounds/);
    assert.match(evaluationError('${word.substring(3, 1)}', context), /out of bounds/);
  });

  test('calling a method on null is an evaluation error', () => {
    assert.match(evaluationError('${nothing.size()}', context), /Cannot call size\(\) on null/);
  });

  test('a pattern RE2 cannot compile is an evaluation error', () => {
    assert.match(evaluationError("${word.matches('(a')}", context), /not a valid RE2 regular expression/);
    assert.match(evaluationError("${word.matches('(a)\\\\1')}", context), /not a valid RE2/);
  });

  test('the allow-list is published per receiver type', () => {
    assert.ok(JUEL_METHODS.String?.includes('contains'));
    assert.ok(JUEL_METHODS.List?.includes('size'));
    assert.ok(JUEL_METHODS.Map?.includes('containsKey'));
    assert.ok(JUEL_METHODS.Execution?.includes('getVariable'));
    assert.ok(!Object.values(JUEL_METHODS).flat().includes('getClass'));
  });
});

describe('the documented allow-list', () => {
  test('docs/workflow/juel.md names every allowed method', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(new URL('../../../docs/workflow/juel.md', import.meta.url), 'utf8');
    for (const [type, names] of Object.entries(JUEL_METHODS)) {
      for (const name of names) {
        const property = name.startsWith('get') ? name.slice(3, 4).toLowerCase() + name.slice(4) : name;
        assert.ok(
          doc.includes(`\`${name}\``) || doc.includes(`\`${property}\``),
          `${type}.${name} is documented`,
        );
      }
    }
  });
});
