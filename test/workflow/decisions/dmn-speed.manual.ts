// Measures decision table evaluation speed: a 50-rule UNIQUE table with 4 inputs, compiled once.
// Run: node --import tsx test/workflow/decisions/dmn-speed.manual.ts
import { compileDmn, evaluateDecision } from '../../../src/workflow/decisions/dmn/index.js';
import { definitions, inputData, tableXml } from './dmn-fixtures.js';

const rules: [string[], string[]][] = [];
for (let i = 0; i < 50; i++) {
  rules.push([
    [`[${i * 10}..${i * 10 + 10})`, i % 2 === 0 ? '"gold","silver"' : 'not("gold","silver")', '>= 18', '-'],
    [`"rule ${i}"`],
  ]);
}
const xml = definitions(`
  ${inputData('i1', 'score', 'number')}${inputData('i2', 'tier', 'string')}
  ${inputData('i3', 'age', 'number')}${inputData('i4', 'country', 'string')}
  <decision id="d" name="Route">
    <informationRequirement><requiredInput href="#i1"/></informationRequirement>
    <informationRequirement><requiredInput href="#i2"/></informationRequirement>
    <informationRequirement><requiredInput href="#i3"/></informationRequirement>
    <informationRequirement><requiredInput href="#i4"/></informationRequirement>
    ${tableXml({ inputs: ['score', 'tier', 'age', 'country'], outputs: [{ name: 'route' }], rules })}
  </decision>`);

const compiled = compileDmn(xml);
const tiers = ['gold', 'silver', 'bronze'];
const inputs = Array.from({ length: 1000 }, (_, i) => ({
  score: (i * 37) % 500,
  tier: tiers[i % 3],
  age: 18 + (i % 50),
  country: 'NL',
}));

for (let i = 0; i < 20_000; i++) evaluateDecision(compiled, 'Route', inputs[i % 1000] ?? {});
const n = 200_000;
const start = process.hrtime.bigint();
let matched = 0;
for (let i = 0; i < n; i++) {
  if (evaluateDecision(compiled, 'Route', inputs[i % 1000] ?? {}).result !== null) matched++;
}
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(
  `${n} evaluations in ${seconds.toFixed(2)}s: ${Math.round(n / seconds)} per second (${matched} matched)`,
);
