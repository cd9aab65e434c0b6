import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLevel } from './tck-runner.js';

// A one-folder level: a model whose decision "Year" is the year of its date input "d".
const MODEL = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="years" name="years" namespace="http://example.com/years">
  <inputData id="i_d" name="d"><variable name="d" typeRef="date"/></inputData>
  <decision id="d_year" name="Year">
    <variable name="Year" typeRef="number"/>
    <informationRequirement id="r1"><requiredInput href="#i_d"/></informationRequirement>
    <literalExpression><text>d.year</text></literalExpression>
  </decision>
</definitions>`;

function testCase(id: string, input: string, expected: string): string {
  return `<testCase id="${id}">
    <inputNode name="d"><value xsi:type="xsd:date">${input}</value></inputNode>
    <resultNode name="Year" type="decision"><expected><value xsi:type="xsd:decimal">${expected}</value></expected></resultNode>
  </testCase>`;
}

const CASES = `<?xml version="1.0" encoding="UTF-8"?>
<testCases xmlns="http://www.omg.org/spec/DMN/20160719/testcase" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <modelName>years.dmn</modelName>
  ${testCase('ordinary', '2020-03-01', '2020')}
  ${testCase('negative-year', '-0001-01-01', '-1')}
  ${testCase('long-year', '12020-03-01', '12020')}
  ${testCase('minus-zero-year', '-0000-01-01', '0')}
  ${testCase('not-a-date', 'yesterday', '0')}
  ${testCase('not-a-number', '2020-03-01', 'twenty')}
  ${testCase('wrong', '2020-03-01', '2021')}
</testCases>`;

function withLevel(files: Record<string, string>, body: (base: string) => void): void {
  const base = mkdtempSync(join(tmpdir(), 'tck-runner-'));
  try {
    mkdirSync(join(base, '0001-years'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(base, '0001-years', name), text);
    body(base);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

test('a TCK case whose inputs or expected results cannot be read fails with its reason; the others run', () => {
  withLevel({ 'years.dmn': MODEL, '0001-years-test-01.xml': CASES }, (base) => {
    const rows = runLevel(base);
    const byId = new Map(rows.map((r) => [r.testCase, r]));
    assert.deepEqual(
      rows.map((r) => [r.testCase, r.result]),
      [
        ['ordinary', 'SUCCESS'],
        ['negative-year', 'SUCCESS'],
        ['long-year', 'SUCCESS'],
        ['minus-zero-year', 'FAILURE'],
        ['not-a-date', 'FAILURE'],
        ['not-a-number', 'FAILURE'],
        ['wrong', 'FAILURE'],
      ],
    );
    assert.match(byId.get('minus-zero-year')?.notes ?? '', /^inputs cannot be read: year -0000/);
    assert.match(
      byId.get('not-a-date')?.notes ?? '',
      /^inputs cannot be read: "yesterday" is not a xsd:date/,
    );
    assert.match(
      byId.get('not-a-number')?.notes ?? '',
      /^expected results cannot be read: "twenty" is not a xsd:decimal/,
    );
    assert.equal(byId.get('wrong')?.notes, 'Year: expected 2021 got 2020');
  });
});

test('a TCK test file that cannot be parsed is one failed row, and the next file still runs', () => {
  withLevel(
    {
      'years.dmn': MODEL,
      '0001-years-test-01.xml': '<testCases><testCase id="x">',
      '0001-years-test-02.xml': CASES,
    },
    (base) => {
      const rows = runLevel(base);
      assert.deepEqual(rows[0], {
        folder: '0001-years',
        testCase: '0001-years-test-01.xml',
        result: 'FAILURE',
        notes: 'test file cannot be read: malformed XML',
      });
      assert.equal(rows.length, 8);
      assert.equal(rows[1]?.testCase, 'ordinary');
    },
  );
});

test('a TCK model that cannot be compiled makes each of its cases an error, not an exception of the run', () => {
  const broken = MODEL.replace('<text>d.year</text>', '<text>d.year +</text>');
  withLevel({ 'years.dmn': broken, '0001-years-test-01.xml': CASES }, (base) => {
    const rows = runLevel(base);
    assert.equal(rows.length, 7);
    assert.deepEqual(
      rows.filter((r) => r.result === 'ERROR').map((r) => r.testCase),
      ['ordinary', 'negative-year', 'long-year', 'wrong'],
    );
    assert.match(rows[0]?.notes ?? '', /^model not (evaluable|readable): /);
  });
});
