// Throughput of typical Script Task steps, in-process and through the sandbox (not a test).
// Run: node --import tsx test/workflow/scripts/scripts-speed.manual.ts
import { performance } from 'node:perf_hooks';
import { createScriptSandbox } from '../../../src/workflow/scripts/sandbox.js';
import { createInProcessExecutor, type StepExecutor } from '../../../src/workflow/scripts/step-executor.js';
import type { ScriptStep, Variables } from '../../../src/workflow/scripts/types.js';

const variables: Variables = {
  order: {
    id: 'A-17',
    lines: [
      { sku: 'x', qty: 2, price: 9.5 },
      { sku: 'y', qty: 1, price: 20 },
    ],
  },
  customer: { name: 'Ada', tier: 'gold' },
  approved: false,
};

const rhaiScript = [
  'let total = 0.0;',
  'let count = 0;',
  'for line in order.lines {',
  '  total += line.price * line.qty;',
  '  count += line.qty;',
  '}',
  'let discount = 0.0;',
  'if customer.tier == "gold" {',
  '  discount = total * 0.1;',
  '} else if customer.tier == "silver" {',
  '  discount = total * 0.05;',
  '}',
  'let net = total - discount;',
  'let label = "order " + order.id;',
  'let big = net > 100.0;',
  'let summary = #{ total: total, net: net, items: count };',
  'if big {',
  '  label += " (large)";',
  '}',
  'summary',
].join('\n');

const steps: ScriptStep[] = [
  {
    name: 'jq',
    type: 'jq',
    expression: '{total: ([.order.lines[] | .qty * .price] | add), label: ("order " + .order.id)}',
  },
  {
    name: 'feel',
    type: 'feel',
    expression: '{total: sum(for l in order.lines return l.qty * l.price), gold: customer.tier = "gold"}',
  },
  { name: 'rhai', type: 'rhai', expression: rhaiScript, resultVariable: 'summary' },
];

async function measure(
  label: string,
  executor: StepExecutor,
  step: ScriptStep,
  concurrency: number,
): Promise<void> {
  const first = await executor.execute(step, variables);
  if (first.status === 'error') {
    console.log(`${label.padEnd(22)} ${step.type.padEnd(5)} skipped: ${first.error.message}`);
    return;
  }
  const seconds = 2;
  let done = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await executor.execute(step, variables);
        done++;
      }
    }),
  );
  const rate = done / ((performance.now() - started) / 1000);
  console.log(
    `${label.padEnd(22)} ${step.type.padEnd(5)} ${Math.round(rate).toString().padStart(7)} steps/s`,
  );
}

const inProcess = createInProcessExecutor();
for (const step of steps) await measure('in-process', inProcess, step, 1);
const sandbox = createScriptSandbox({ poolSize: 2 });
await sandbox.ready();
for (const step of steps) await measure('sandbox (2 workers)', sandbox, step, 4);
await sandbox.close();
