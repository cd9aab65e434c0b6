/**
 * npm run bench:console — how fast the consoles show their busiest pages, measured in a real
 * headless Chromium (the one the browser tests use). The workflow service holds BENCH_INSTANCES
 * (default 10,000) instances of one process, all waiting at an external task; the records service
 * BENCH_RECORDS (default 10,000) purchase orders. Each service runs in its own process.
 *
 * Per page and run, inside the browser with the Performance API: from the in-app navigation (a
 * link click: `history.pushState` + `popstate`, as preact-iso routes) to the page's content on
 * screen — the instances list's first row, the instance page's drawn diagram, the records table's
 * first row. BENCH_RUNS (default 7) runs per page: the first visit (which also downloads the page's
 * lazily loaded code, bpmn-js for the instance page) is printed apart from the median and worst of
 * the later visits. Also the
 * JavaScript transferred (compressed bytes, `transferSize`) for a cold load of the login page and
 * of the first page after logging in. Targets (issue 19): each page under 500 ms on a 2-core
 * machine; the first page's JavaScript under 400 KB.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { migrate } from '../src/platform/database/migrate.js';
import { createPool } from '../src/platform/database/pool.js';
import { applyResources } from '../src/records/schemas/apply-resources.js';
import { readResourceDirectory } from '../src/records/schemas/resource-documents.js';
import { examplesResourcesDir } from '../src/records/schemas/examples-dir.js';
import { recordsMigrationsDir } from '../src/records/index.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { startBenchServer } from './support/bench-database.js';
import { benchSupplierId, seedBenchSupplier } from './support/bench-supplier.js';
import { runConcurrently } from './support/concurrency.js';
import { startServerProcess } from './support/load.js';
import { prepareWorkflowBenchDatabase, workflowClient } from './support/workflow-client.js';

const instanceCount = Number(process.env.BENCH_INSTANCES ?? '10000');
const recordCount = Number(process.env.BENCH_RECORDS ?? '10000');
const runs = Number(process.env.BENCH_RUNS ?? '7');
const jwtSecret = 'bench-records-secret-0123456789abcdef0123';
const ordersPath = 'acme/procurement/purchasing/purchase-orders/v1';
const ordersTable = 'rec_acme.procurement__purchasing__purchase_orders__v1';

const bpmn = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC"
  xmlns:di="http://www.omg.org/spec/DD/20100524/DI"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="D" targetNamespace="urn:bench">
  <bpmn:process id="console-bench" name="Console bench" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="work" name="Work" camunda:type="external" camunda:topic="work" />
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="end" />
  </bpmn:process>
  <bpmndi:BPMNDiagram id="d"><bpmndi:BPMNPlane id="p" bpmnElement="console-bench">
    <bpmndi:BPMNShape id="start_di" bpmnElement="start"><dc:Bounds x="100" y="100" width="36" height="36" /></bpmndi:BPMNShape>
    <bpmndi:BPMNShape id="work_di" bpmnElement="work"><dc:Bounds x="190" y="78" width="100" height="80" /></bpmndi:BPMNShape>
    <bpmndi:BPMNShape id="end_di" bpmnElement="end"><dc:Bounds x="350" y="100" width="36" height="36" /></bpmndi:BPMNShape>
    <bpmndi:BPMNEdge id="f1_di" bpmnElement="f1"><di:waypoint x="136" y="118" /><di:waypoint x="190" y="118" /></bpmndi:BPMNEdge>
    <bpmndi:BPMNEdge id="f2_di" bpmnElement="f2"><di:waypoint x="290" y="118" /><di:waypoint x="350" y="118" /></bpmndi:BPMNEdge>
  </bpmndi:BPMNPlane></bpmndi:BPMNDiagram>
</bpmn:definitions>`;

/** Setup steps go to stderr, so a slow or stuck step is visible while the figures stay on stdout. */
const progress = (step: string) => process.stderr.write(`bench:console: ${step}\n`);

// Browser-side code, as text: it runs in the page, which this Node program's types do not describe.
const navigateInPage = `(target, wanted) => new Promise((resolve, reject) => {
  const started = performance.now();
  const deadline = started + 30000;
  history.pushState(null, '', target);
  dispatchEvent(new PopStateEvent('popstate'));
  const check = () => {
    if (document.querySelector(wanted)) resolve(performance.now() - started);
    else if (performance.now() > deadline) reject(new Error('no ' + wanted + ' at ' + target));
    else requestAnimationFrame(check);
  };
  check();
})`;
const scriptBytesInPage = `performance.getEntriesByType('resource')
  .filter((entry) => new URL(entry.name).pathname.endsWith('.js'))
  .reduce((sum, entry) => sum + entry.transferSize, 0)`;

/** Milliseconds from an in-app navigation to `selector` on screen, measured in the page. */
async function navigate(page: Page, target: string, selector: string): Promise<number> {
  try {
    return await page.evaluate<number>(
      `(${navigateInPage})(${JSON.stringify(target)}, ${JSON.stringify(selector)})`,
    );
  } catch (error) {
    const shot = path.join(os.tmpdir(), 'bench-console-failure.png');
    await page.screenshot({ path: shot });
    progress(`the page as it was: ${shot}`);
    throw error;
  }
}

/** Compressed bytes of the JavaScript the page has loaded so far. */
function scriptBytes(page: Page): Promise<number> {
  return page.evaluate<number>(scriptBytesInPage);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

progress('starting PostgreSQL');
const server = await startBenchServer();
const stops: (() => Promise<void>)[] = [];
try {
  // Workflow: the service, one process, instanceCount instances waiting at its task.
  progress('starting the workflow service');
  const workflowUrl = await server.createDatabase('weft_bench_console_workflow');
  await prepareWorkflowBenchDatabase(workflowUrl);
  const workflow = await startServerProcess(fileURLToPath(new URL('./engine-server.ts', import.meta.url)), {
    BENCH_WORKFLOW_URL: workflowUrl,
    BENCH_POOL_SIZE: '10',
  });
  stops.push(() => workflow.stop());
  const workflowBase = `http://127.0.0.1:${workflow.port}`;
  const call = await workflowClient(workflowBase);
  const org = await call('POST', '/api/v1/orgs', { name: 'Bench', slug: 'bench' });
  const group = await call('POST', `/api/v1/orgs/${org.id}/process-groups`, { name: 'bench' });
  await call('POST', '/api/v1/deployments', { org_id: org.id, process_group_id: group.id, xml: bpmn });
  progress(`starting ${instanceCount} instances`);
  let lastInstance = '';
  await runConcurrently(instanceCount, 16, async () => {
    const started = await call('POST', '/api/v1/process-instances', {
      org_id: org.id ?? '',
      process_key: 'console-bench',
      variables: { amount: 10 },
    });
    lastInstance = started.id ?? lastInstance;
  });

  progress(`seeding ${recordCount} records`);
  // Records: the service with the example schemas and recordCount purchase orders.
  const recordsUrl = await server.createDatabase('weft_bench_console_records');
  const pool = createPool(recordsUrl, { max: 2, applicationName: 'bench-setup' });
  await migrate(pool, 'records', recordsMigrationsDir);
  const report = await applyResources(pool, (await readResourceDirectory(examplesResourcesDir)).documents);
  if (report.rejected.length > 0) throw new Error(JSON.stringify(report.rejected));
  await seedBenchSupplier(pool);
  await pool.query(
    `INSERT INTO ${ordersTable} (created_by, updated_by, po_number, supplier_id, status, currency, amount, ordered_on, notes)
     SELECT 'seed', 'seed', 'PO-' || lpad(n::text, 6, '0'), $1::uuid,
            (ARRAY['draft','submitted','approved','received','cancelled'])[1 + n % 5],
            (ARRAY['EUR','USD','GBP','CHF'])[1 + n % 4], round((random() * 100000)::numeric, 2),
            date '2025-01-01' + n % 365, 'seeded order ' || n
     FROM generate_series(0, ${recordCount - 1}) AS n`,
    [benchSupplierId],
  );
  await pool.query(`VACUUM ANALYZE ${ordersTable}`);
  await pool.end();
  const records = await startServerProcess(fileURLToPath(new URL('./records/server.ts', import.meta.url)), {
    BENCH_RECORDS_URL: recordsUrl,
    BENCH_MODE: 'weft',
    BENCH_JWT_SECRET: jwtSecret,
  });
  stops.push(() => records.stop());
  const recordsBase = `http://127.0.0.1:${records.port}`;
  const { SignJWT } = await import('jose');
  const recordsToken = await new SignJWT({ roles: ['admin'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench')
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(jwtSecret));

  progress('measuring in the browser');
  const browser = await launchBrowser();
  stops.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  page.on('pageerror', (error) => progress(`page error: ${error.message}`));

  // Cold loads: the login page, then the first page after logging in.
  await page.goto(`${workflowBase}/console/`);
  await page.getByLabel('Email').waitFor();
  const loginBytes = await scriptBytes(page);
  await page.getByLabel('Email').fill('bench@example.com');
  await page.getByLabel('Password').fill('bench password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.locator('main h1').waitFor();
  const firstPageBytes = await scriptBytes(page);

  const timings: Record<string, number[]> = { instances: [], instance: [], records: [] };
  let diagramPageBytes = 0;
  for (let run = 0; run < runs; run++) {
    await navigate(page, '/console/processes', 'main h1');
    timings.instances?.push(await navigate(page, '/console/instances', 'main table tbody tr'));
    await navigate(page, '/console/processes', 'main h1');
    timings.instance?.push(
      await navigate(page, `/console/instances/${lastInstance}`, '.diagram[data-ready="true"] .djs-element'),
    );
    if (run === 0) diagramPageBytes = await scriptBytes(page);
  }
  await page.goto(`${recordsBase}/console/`);
  await page.getByLabel('API key').fill(recordsToken);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.locator('main h1').waitFor();
  for (let run = 0; run < runs; run++) {
    await navigate(page, '/console/schemas', 'main h1');
    timings.records?.push(await navigate(page, `/console/records/${ordersPath}`, 'main table tbody tr'));
  }

  console.log(
    `\nbench:console — ${instanceCount} instances, ${recordCount} records, ${runs} runs per page, headless Chromium`,
  );
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${server.describe}, load ${os.loadavg()[0]?.toFixed(1)}\n`,
  );
  const ms = (value: number) => `${value.toFixed(0).padStart(4)} ms`;
  for (const [name, [first = NaN, ...later]] of Object.entries(timings))
    console.log(
      `${name.padEnd(10)} first visit ${ms(first)}   then median ${ms(median(later))}   worst ${ms(Math.max(...later))}   (target < 500 ms)`,
    );
  console.log(
    `\nJavaScript transferred: login page ${(loginBytes / 1024).toFixed(0)} KB, first page after login ${(firstPageBytes / 1024).toFixed(0)} KB (target < 400 KB); with the first diagram page (bpmn-js) ${(diagramPageBytes / 1024).toFixed(0)} KB`,
  );
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await server.stop();
}
