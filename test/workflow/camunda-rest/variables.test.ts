import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatCamundaDate, parseCamundaDate } from '../../../src/workflow/camunda-rest/camunda-date.js';
import { CamundaError } from '../../../src/workflow/camunda-rest/camunda-errors.js';
import {
  decodeVariable,
  decodeVariables,
  encodeVariable,
  encodeVariables,
} from '../../../src/workflow/camunda-rest/variables.js';

function refusal(run: () => unknown): CamundaError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof CamundaError, `expected a CamundaError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a refusal');
}

describe('Camunda dates', () => {
  test('reads the Camunda format with its offset', () => {
    assert.equal(parseCamundaDate('2013-01-23T13:42:42.000+0200')?.toISOString(), '2013-01-23T11:42:42.000Z');
    assert.equal(parseCamundaDate('2013-01-23T13:42:42.5-01:30')?.toISOString(), '2013-01-23T15:12:42.500Z');
    assert.equal(parseCamundaDate('2013-01-23T13:42:42Z')?.toISOString(), '2013-01-23T13:42:42.000Z');
  });

  test('refuses days that do not exist and text that is no date', () => {
    for (const text of ['2013-02-30T00:00:00.000+0000', '2013-13-01T00:00:00.000+0000', '2013-01-01', 'soon'])
      assert.equal(parseCamundaDate(text), null, text);
  });

  test('writes UTC with +0000', () => {
    assert.equal(formatCamundaDate(new Date('2024-05-06T07:08:09.010Z')), '2024-05-06T07:08:09.010+0000');
  });
});

describe('decoding typed variables', () => {
  test('each supported type becomes its JSON value', () => {
    const decoded = decodeVariables({
      s: { value: 'text', type: 'String' },
      b: { value: true, type: 'Boolean' },
      i: { value: 42, type: 'Integer' },
      l: { value: 9_000_000_000, type: 'Long' },
      sh: { value: -7, type: 'Short' },
      d: { value: 1.5, type: 'Double' },
      date: { value: '2013-01-23T13:42:42.000+0200', type: 'Date' },
      json: { value: '{"a":[1,2]}', type: 'Json' },
      object: {
        value: '{"name":"Ada"}',
        type: 'Object',
        valueInfo: { serializationDataFormat: 'application/json', objectTypeName: 'com.example.Person' },
      },
      nothing: { value: null, type: 'Null' },
      lower: { value: 3, type: 'integer' },
      stringNull: { value: null, type: 'String' },
      untyped: { value: { x: 1 } },
    });
    assert.deepEqual(decoded, {
      s: 'text',
      b: true,
      i: 42,
      l: 9_000_000_000,
      sh: -7,
      d: 1.5,
      date: '2013-01-23T11:42:42.000Z',
      json: { a: [1, 2] },
      object: { name: 'Ada' },
      nothing: null,
      lower: 3,
      stringNull: null,
      untyped: { x: 1 },
    });
  });

  test('numbers and booleans sent as text are read as Camunda (Jackson) reads them', () => {
    assert.equal(decodeVariable('n', { value: '12', type: 'Integer' }), 12);
    assert.equal(decodeVariable('b', { value: 'false', type: 'Boolean' }), false);
  });

  test('unsupported types are refused naming the variable and the type', () => {
    for (const type of ['File', 'Bytes', 'Xml', 'Something']) {
      const error = refusal(() => decodeVariables({ attachment: { value: 'x', type } }));
      assert.equal(error.statusCode, 400);
      assert.equal(error.type, 'InvalidRequestException');
      assert.match(error.message, new RegExp(`'attachment'.*'${type}' is not supported`));
    }
  });

  test('Object values in another serialisation than JSON are refused', () => {
    const error = refusal(() =>
      decodeVariable('o', {
        value: 'rO0AB',
        type: 'Object',
        valueInfo: { serializationDataFormat: 'application/x-java-serialized-object' },
      }),
    );
    assert.match(error.message, /application\/x-java-serialized-object" is not supported/);
  });

  test('values that do not fit their type are refused', () => {
    const cases: [string, unknown][] = [
      ['Integer', 2 ** 31],
      ['Integer', 1.5],
      ['Short', 40_000],
      ['Long', 'many'],
      ['Double', 'NaN'],
      ['Boolean', 'yes'],
      ['String', 5],
      ['Date', '23.01.2013'],
      ['Json', '{broken'],
    ];
    for (const [type, value] of cases) {
      const error = refusal(() => decodeVariable('v', { value, type }));
      assert.equal(error.statusCode, 400, `${type} ${String(value)}`);
    }
  });

  test('a variable that is not a typed value object is refused', () => {
    assert.equal(refusal(() => decodeVariables({ v: 5 })).statusCode, 400);
    assert.equal(refusal(() => decodeVariables([1])).statusCode, 400);
  });

  test('a name such as __proto__ is an ordinary variable', () => {
    const decoded = decodeVariables(JSON.parse('{"__proto__": {"value": "x", "type": "String"}}'));
    assert.deepEqual(Object.keys(decoded), ['__proto__']);
    assert.equal(Object.getPrototypeOf(decoded), Object.prototype);
  });
});

describe('encoding weft variables', () => {
  test('each JSON value gets its Camunda type', () => {
    assert.deepEqual(
      encodeVariables({ s: 'x', b: false, i: 7, l: 2 ** 31, d: 0.25, n: null, o: { a: 1 }, a: [1] }),
      {
        s: { type: 'String', value: 'x', valueInfo: {} },
        b: { type: 'Boolean', value: false, valueInfo: {} },
        i: { type: 'Integer', value: 7, valueInfo: {} },
        l: { type: 'Long', value: 2 ** 31, valueInfo: {} },
        d: { type: 'Double', value: 0.25, valueInfo: {} },
        n: { type: 'Null', value: null, valueInfo: {} },
        o: { type: 'Json', value: '{"a":1}', valueInfo: {} },
        a: { type: 'Json', value: '[1]', valueInfo: {} },
      },
    );
  });

  test('only the named variables when names are given', () => {
    assert.deepEqual(Object.keys(encodeVariables({ a: 1, b: 2, c: 3 }, ['a', 'c'])), ['a', 'c']);
  });

  test('a value survives encoding and decoding', () => {
    for (const value of ['x', true, -3, 2 ** 40, 1.25, null, { nested: [1, { b: 'c' }] }])
      assert.deepEqual(decodeVariable('v', encodeVariable(value)), value);
  });
});
