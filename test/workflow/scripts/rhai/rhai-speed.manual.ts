// Manual throughput check (not a test): `node --import tsx test/workflow/scripts/rhai/rhai-speed.manual.ts`
import { compileRhai, runRhai } from '../../../../src/workflow/scripts/rhai/index.js';

const source = `
let total = 0;
let names = [];
for item in order.items {
  total += item.price * item.qty;
  names.push(item.name.to_upper());
}
let discount = if total > 100 { total / 10 } else { 0 };
let summary = #{ count: names.len(), total: total - discount };
let label = "";
for n in names {
  if label != "" { label += ", "; }
  label += n;
}
let i = 0;
while i < 10 { i += 1; }
summary.label = \`\${label} (\${summary.count})\`;
let ok = total > 0 && "widget" in label.to_lower();
summary
`;

const program = compileRhai(source);
const scope = {
  order: {
    items: [
      { name: 'widget', price: 25, qty: 2 },
      { name: 'gadget', price: 40, qty: 1 },
      { name: 'doohickey', price: 15, qty: 3 },
    ],
  },
};
for (let i = 0; i < 2000; i++) runRhai(program, scope);
const n = 50_000;
const start = performance.now();
for (let i = 0; i < n; i++) runRhai(program, scope);
const ms = performance.now() - start;
console.log(JSON.stringify(runRhai(program, scope).value));
console.log(`${Math.round((n / ms) * 1000)} runs/s (${((ms * 1000) / n).toFixed(1)} µs per run)`);
