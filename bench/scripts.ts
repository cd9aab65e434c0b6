/**
 * npm run bench:scripts — Script Task steps per second in this process on one core: a typical jq
 * step, a FEEL step and a 20-line Rhai step on a small variable map, each run one after another
 * through the in-process executor (what a sandbox worker runs). Beside them, in the same run: the
 * same Rhai computation written as plain JavaScript (the floor of the interpreter), and jq fed many
 * inputs in one call (what jq costs once its per-call start-up is shared), the jq step's CPU over all
 * threads (its resident jq runs in a thread of its own) and the jq step with one jq run per step.
 * Not a test: it prints figures.
 *
 * BENCH_SECONDS (default 3) sets the length of each measurement.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { loadJqEngine } from '../src/workflow/scripts/jq-engine.js';
import { runJqStep } from '../src/workflow/scripts/jq-step.js';
import { compileRhai, runRhai } from '../src/lib/rhai/index.js';
import { createInProcessExecutor } from '../src/workflow/scripts/step-executor.js';
import type { JsonValue, ScriptStep, Variables } from '../src/workflow/scripts/types.js';

const seconds = Number(process.env.BENCH_SECONDS ?? '3');
const targets = { jq: 1_500, rhai: 20_000 };

const variables: Variables = {
  order: {
    id: 'A-17',
    lines: [
      { sku: 'x', qty: 2, price: 9.5 },
      { sku: 'y', qty: 1, price: 20 },
      { sku: 'z', qty: 4, price: 3.25 },
    ],
  },
  customer: { name: 'Ada', tier: 'gold' },
  approved: false,
};

// Twenty lines: a loop over the order lines, branches, string building and a map result.
const rhaiSource = [
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

interface Line {
  sku: string;
  qty: number;
  price: number;
}
interface Order {
  id: string;
  lines: Line[];
}

// The Rhai script in JavaScript, over the same JSON, returning the scope changes Rhai returns.
function plainJs(vars: Variables): Record<string, JsonValue> {
  const order = vars.order as unknown as Order;
  const customer = vars.customer as { tier: string };
  let total = 0;
  let count = 0;
  for (const line of order.lines) {
    total += line.price * line.qty;
    count += line.qty;
  }
  let discount = 0;
  if (customer.tier === 'gold') discount = total * 0.1;
  else if (customer.tier === 'silver') discount = total * 0.05;
  const net = total - discount;
  let label = 'order ' + order.id;
  const big = net > 100;
  const summary = { total, net, items: count };
  if (big) label += ' (large)';
  return { total, count, discount, net, label, big, summary };
}

const steps: ScriptStep[] = [
  {
    name: 'jq',
    type: 'jq',
    expression:
      '{total: ([.order.lines[] | .qty * .price] | add), items: ([.order.lines[].qty] | add), label: ("order " + .order.id)}',
  },
  {
    name: 'feel',
    type: 'feel',
    expression:
      '{total: sum(for l in order.lines return l.qty * l.price), gold: customer.tier = "gold", label: "order " + order.id}',
  },
  { name: 'rhai', type: 'rhai', expression: rhaiSource, resultVariable: 'summary' },
];

/** Calls `run` back to back for `seconds` (after a short warm-up) and returns calls per second. */
async function rate(run: () => unknown): Promise<number> {
  const warmUntil = performance.now() + 300;
  while (performance.now() < warmUntil) await run();
  let done = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  while (performance.now() < until) {
    await run();
    done++;
  }
  return done / ((performance.now() - started) / 1000);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const executor = createInProcessExecutor();
const figures: Record<string, number> = {};

console.log(
  `bench:scripts — ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, ${seconds} s each`,
);
for (const step of steps) {
  const first = await executor.execute(step, variables);
  if (first.status === 'error') throw new Error(`${step.type} step failed: ${first.error.message}`);
  figures[step.type] = await rate(() => executor.execute(step, variables));
  console.log(`${`${step.type} step`.padEnd(34)} ${fmt(figures[step.type] ?? 0).padStart(9)} steps/s`);
}

const program = compileRhai(rhaiSource);
const interpreter = await rate(() => runRhai(program, { ...variables }));
const js = await rate(() => plainJs(variables));
console.log(`${'Rhai interpreter alone'.padEnd(34)} ${fmt(interpreter).padStart(9)} runs/s`);
console.log(`${'same computation in plain JS'.padEnd(34)} ${fmt(js).padStart(9)} runs/s`);
const ratio = (label: string, value: number) =>
  console.log(`${label.padEnd(34)} ${value.toFixed(4).padStart(9)}  (plain JS ${fmt(1 / value)}× faster)`);
ratio('Rhai interpreter / plain JS', interpreter / js);
ratio('Rhai step / plain JS', (figures.rhai ?? 0) / js);

// The jq step above is answered by a resident jq (its own thread, jq started once): its CPU over all
// threads, and the same step with one jq command-line run per step (what every step cost before).
const jqStep = steps[0] as ScriptStep;
const cpuBefore = process.cpuUsage();
const wallStarted = performance.now();
const residentRate = await rate(() => executor.execute(jqStep, variables));
const cpuUsed = process.cpuUsage(cpuBefore);
const cpuShare = (cpuUsed.user + cpuUsed.system) / 1000 / (performance.now() - wallStarted);
console.log(
  `${'jq step per CPU-second, all threads'.padEnd(34)} ${fmt(residentRate / cpuShare).padStart(9)} steps/s  (${cpuShare.toFixed(2)} cores busy)`,
);
const perCall = await loadJqEngine({ residentPrograms: 0 });
const perCallRate = await rate(() => runJqStep(perCall, jqStep, variables));
console.log(`${'jq step, one jq run per step'.padEnd(34)} ${fmt(perCallRate).padStart(9)} steps/s`);

// jq processes every JSON text of its input with the same compiled program: one call, many inputs.
const jq = perCall;
const jqProgram = jqStep.expression;
const batch = 100;
const batchInput = Array.from({ length: batch }, () => JSON.stringify(variables)).join('\n');
const batched = (await rate(() => jq.run(jqProgram, batchInput))) * batch;
console.log(`${`jq, ${batch} inputs per call`.padEnd(34)} ${fmt(batched).padStart(9)} inputs/s`);

console.log('');
for (const [type, target] of Object.entries(targets)) {
  const got = figures[type] ?? 0;
  console.log(
    `target ${type}: ≥ ${fmt(target)} steps/s — ${got >= target ? 'met' : 'NOT met'} (${fmt(got)})`,
  );
}
