import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { contextWith, valueOf } from './helpers.js';

const variables = {
  approved: true,
  rejected: false,
  amount: 1500,
  price: 19.99,
  approver: 'demo',
  nothing: null,
  name: 'Ada',
  emptyText: '',
  numberText: '42',
  floatText: '2.5',
  list: ['a', 'b', 'c'],
  numbers: [1, 2.5, 3],
  emptyList: [],
  map: { k: 'v', 'two words': 2, nested: { deeper: { leaf: 'yes' } } },
  emptyMap: {},
  a: { b: { c: 7 } },
  yes: 'TRUE',
  big: 9007199254740991,
  when: new Date('2025-03-01T00:00:00.000Z'),
  earlier: new Date('2024-03-01T00:00:00.000Z'),
};
const context = contextWith(variables);

/**
 * [expression, value, the value as a String]: the String form shows the EL type, since a Long prints
 * as `2` and a Double as `2.0` (Java's Double.toString).
 */
const TABLE: readonly (readonly [string, unknown, string])[] = [
  // literals
  ['${true}', true, 'true'],
  ['${false}', false, 'false'],
  ['${null}', null, ''],
  ['${42}', 42, '42'],
  ['${4.0}', 4, '4.0'],
  ['${.5}', 0.5, '0.5'],
  ['${1e3}', 1000, '1000.0'],
  ['${1.5E-5}', 1.5e-5, '1.5E-5'],
  ['${12345678.9}', 12345678.9, '1.23456789E7'],
  ["${'it\\'s'}", "it's", "it's"],
  ['${"say \\"hi\\""}', 'say "hi"', 'say "hi"'],
  ["${'back\\\\slash'}", 'back\\slash', 'back\\slash'],
  ['${"mixed \'quotes\'"}', "mixed 'quotes'", "mixed 'quotes'"],
  // arithmetic: Long stays Long, / and div are Double, Strings coerce
  ['${1 + 1}', 2, '2'],
  ['${1 / 2}', 0.5, '0.5'],
  ['${4 / 2}', 2, '2.0'],
  ['${7 div 2}', 3.5, '3.5'],
  ['${7 % 2}', 1, '1'],
  ['${-7 mod 2}', -1, '-1'],
  ['${7.5 % 2}', 1.5, '1.5'],
  ['${2 * 3.0}', 6, '6.0'],
  ['${10 - 2 * 3}', 4, '4'],
  ['${(10 - 2) * 3}', 24, '24'],
  ["${'1' + 1}", 2, '2'],
  ["${'1.5' + 1}", 2.5, '2.5'],
  ["${'1' + '2'}", 3, '3'],
  ['${floatText * 2}', 5, '5.0'],
  ['${numberText - 2}', 40, '40'],
  ['${null + 1}', 1, '1'],
  ['${nothing + nothing}', 0, '0'],
  ['${-amount}', -1500, '-1500'],
  ["${-'3'}", -3, '-3'],
  ["${-'3.5'}", -3.5, '-3.5'],
  ['${-nothing}', 0, '0'],
  ['${1 div 0}', Infinity, 'Infinity'],
  ['${-1 / 0}', -Infinity, '-Infinity'],
  ['${9223372036854775807 + 1}', -9223372036854775808, '-9223372036854775808'],
  ['${amount * 2}', 3000, '3000'],
  ['${price * 2}', 39.98, '39.98'],
  ['${big + 0}', 9007199254740991, '9007199254740991'],
  // comparisons
  ["${'a' == 'a'}", true, 'true'],
  ["${'a' eq 'b'}", false, 'false'],
  ['${1 == 1.0}', true, 'true'],
  ["${'1' == 1}", true, 'true'],
  ['${nothing == null}', true, 'true'],
  ['${nothing != null}', false, 'false'],
  ['${approver != null}', true, 'true'],
  ['${null == 0}', false, 'false'],
  ["${approved == 'true'}", true, 'true'],
  ['${yes == true}', true, 'true'],
  ['${list == list}', true, 'true'],
  ["${map.k ne 'w'}", true, 'true'],
  ['${amount > 1000}', true, 'true'],
  ['${amount gt 1000 and amount lt 2000}', true, 'true'],
  ['${amount >= 1500}', true, 'true'],
  ['${amount le 1499}', false, 'false'],
  ['${price < 20}', true, 'true'],
  ["${'10' < 9}", false, 'false'],
  ["${'abc' < 'abd'}", true, 'true'],
  ["${'Z' < 'a'}", true, 'true'],
  ["${'b' ge 'a'}", true, 'true'],
  ['${nothing < 1}', false, 'false'],
  ['${nothing <= nothing}', true, 'true'],
  ['${earlier < when}', true, 'true'],
  ['${false < true}', true, 'true'],
  // logic
  ['${approved}', true, 'true'],
  ['${!approved}', false, 'false'],
  ['${not approved}', false, 'false'],
  ['${not rejected}', true, 'true'],
  ['${!nothing}', true, 'true'],
  ["${!'true'}", false, 'false'],
  ['${approved && rejected}', false, 'false'],
  ['${approved or rejected}', true, 'true'],
  ['${amount > 1000 && approver != null}', true, 'true'],
  ['${rejected && unknownVariable}', false, 'false'],
  ['${approved || unknownVariable}', true, 'true'],
  ['${approved ? 1 : 2}', 1, '1'],
  ["${rejected ? 'a' : rejected ? 'b' : 'c'}", 'c', 'c'],
  ["${yes ? 'y' : 'n'}", 'y', 'y'],
  // empty
  ['${empty nothing}', true, 'true'],
  ["${empty ''}", true, 'true'],
  ['${empty emptyText}', true, 'true'],
  ['${empty emptyList}', true, 'true'],
  ['${empty emptyMap}', true, 'true'],
  ['${empty list}', false, 'false'],
  ['${empty name}', false, 'false'],
  ['${empty 0}', false, 'false'],
  ['${not empty list}', true, 'true'],
  ['${!empty map.missing}', false, 'false'],
  // property and index access
  ['${a.b.c}', 7, '7'],
  ["${a['b']['c']}", 7, '7'],
  ["${map['k']}", 'v', 'v'],
  ["${map['two words']}", 2, '2'],
  ['${map.nested.deeper.leaf}', 'yes', 'yes'],
  ['${map.missing}', null, ''],
  ['${map.missing.further}', null, ''],
  ['${list[1]}', 'b', 'b'],
  ["${list['2']}", 'c', 'c'],
  ['${list[1.9]}', 'b', 'b'],
  ['${list[3]}', null, ''],
  ['${list[-1]}', null, ''],
  ['${list[nothing]}', null, ''],
  ['${numbers[1]}', 2.5, '2.5'],
  ['${numbers[0]}', 1, '1'],
  ['${when.time}', 1740787200000, '1740787200000'],
  // string coercion in composite text
  ['Hello ${name}!', 'Hello Ada!', 'Hello Ada!'],
  ['${name}${amount}', 'Ada1500', 'Ada1500'],
  ['n=${nothing};', 'n=;', 'n=;'],
  ['${approved} and ${price}', 'true and 19.99', 'true and 19.99'],
  ['at ${when}', 'at 2025-03-01T00:00:00.000Z', 'at 2025-03-01T00:00:00.000Z'],
  ['list ${list}', 'list ["a","b","c"]', 'list ["a","b","c"]'],
  ['#{amount}', 1500, '1500'],
  ['plain text', 'plain text', 'plain text'],
  ['cost: \\${amount}', 'cost: ${amount}', 'cost: ${amount}'],
  ['a \\#{b} c', 'a #{b} c', 'a #{b} c'],
  ['$ {x} and #x and \\n', '$ {x} and #x and \\n', '$ {x} and #x and \\n'],
  ['', '', ''],
];

describe('JUEL values and types', () => {
  for (const [text, value, printed] of TABLE) {
    test(`${text} is ${JSON.stringify(value)} and prints as '${printed}'`, () => {
      assert.deepEqual(valueOf(text, context), value);
      const composite = text.startsWith('${') && text.endsWith('}') ? `=${text}` : null;
      if (composite !== null) assert.equal(valueOf(composite, context), `=${printed}`);
    });
  }

  test('a lone expression keeps its type; with text around it the result is a String', () => {
    assert.deepEqual(valueOf('${list}', context), ['a', 'b', 'c']);
    assert.deepEqual(valueOf('${map.nested}', context), { deeper: { leaf: 'yes' } });
    assert.ok(valueOf('${when}', context) instanceof Date);
    assert.equal(valueOf(' ${amount}', context), ' 1500');
  });

  test('a missing key of a map is null, not an error', () => {
    assert.equal(valueOf('${map.nope == null}', context), true);
  });
});
