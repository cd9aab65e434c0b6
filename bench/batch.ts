/**
 * npm run bench:batch — batches (issue 18): a `retryIncidents` batch over BENCH_ITEMS (default
 * 10,000) instances with an open incident, then a `migrate` batch moving the same instances from
 * version 1 to version 2, each run by the service's batch executor in its own process and timed from
 * the batch's creation to its completion. The floor, in the same run: the same number of
 * single-row UPDATEs by primary key, 100 per transaction on one connection (what the executor's
 * item bookkeeping costs at the least). Ratio = items per second / floor rows per second, the median
 * of BENCH_ROUNDS (default 3) alternating rounds. BENCH_DATABASE_URL for another server.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { createPool, type Pool } from '../src/platform/database/pool.js';
import { startBenchServer } from './support/bench-database.js';
import { interleave } from './support/interleave.js';
import { startServerProcess } from './support/load.js';
import {
  prepareWorkflowBenchDatabase,
  workflowClient,
  type WorkflowCall,
} from './support/workflow-client.js';

const items = Number(process.env.BENCH_ITEMS ?? '10000');
const rounds = Number(process.env.BENCH_ROUNDS ?? '3');
const chunk = 100;
const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** One round's figures: items (or rows) per second of each kind. */
interface Round {
  retry: number;
  migrate: number;
}

/** Waits until the batch is completed; its items per second since `began`. */
async function completion(pool: Pool, batchId: string, began: number): Promise<number> {
  for (;;) {
    const { rows } = await pool.query<{ state: string; failed: string }>(
      `SELECT state, (SELECT count(*) FROM batch_items WHERE batch_id = $1 AND state = 'failed') AS failed
       FROM batches WHERE id = $1`,
      [batchId],
    );
    if (rows[0]?.state === 'completed') {
      if (rows[0].failed !== '0') throw new Error(`${rows[0].failed} items of batch ${batchId} failed`);
      return items / ((Date.now() - began) / 1000);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The service in its own process, with both versions deployed and one template incident instance. */
async function openBatches(url: string) {
  const server = await startServerProcess(fileURLToPath(new URL('./engine-server.ts', import.meta.url)), {
    BENCH_WORKFLOW_URL: url,
    BENCH_POOL_SIZE: '10',
  });
  const call: WorkflowCall = await workflowClient(`http://127.0.0.1:${server.port}`);
  const org = await call('POST', '/api/v1/orgs', { name: 'Bench', slug: 'bench' });
  const orgId = org.id ?? '';
  const group = await call('POST', `/api/v1/orgs/${orgId}/process-groups`, { name: 'bench' });
  const definitions: string[] = [];
  for (const version of ['v1', 'v2']) {
    const xml = await readFile(
      new URL(`../test/workflow/engine/api/fixtures/migrate-${version}.bpmn`, import.meta.url),
      'utf8',
    );
    definitions.push(
      (await call('POST', '/api/v1/deployments', { org_id: orgId, process_group_id: group.id, xml })).id ??
        '',
    );
  }
  const [v1, v2] = definitions as [string, string];
  // The template: an instance whose external task failed for good (one open jobFailed incident).
  await call('POST', '/api/v1/process-instances', {
    org_id: orgId,
    definition_id: v1,
    business_key: 'template',
  });
  const [task] = (await call('POST', '/api/v1/external-tasks/fetch-and-lock', {
    worker_id: 'w',
    max_tasks: 1,
    topics: [{ topic_name: 'charge', lock_duration_ms: 60_000 }],
  })) as unknown as { id: string }[];
  if (!task) throw new Error('no task to fail');
  await call('POST', `/api/v1/external-tasks/${task.id}/failure`, {
    worker_id: 'w',
    error_message: 'declined',
    retries: 0,
    retry_timeout_ms: 0,
  }).catch(() => ({}));
  const pool = createPool(url, { max: 2, applicationName: 'bench-batch-setup' });
  const template = (
    await pool.query<{ engine_state: string; incident_id: string; wait_id: string }>(
      `SELECT p.engine_state::text AS engine_state, i.id AS incident_id, i.wait_id
       FROM process_instances p JOIN incidents i ON i.process_instance_id = p.id WHERE p.business_key = 'template'`,
    )
  ).rows[0];
  if (!template) throw new Error('no template instance');
  let counter = 1;

  /** `items` copies of the template with fresh ids, tagged `businessKey`. */
  const copies = async (businessKey: string) => {
    const ids = [...new Set(template.engine_state.match(uuidPattern))];
    const instance: string[] = [];
    const counters: number[] = [];
    const states: string[] = [];
    const incidents: string[] = [];
    const waits: string[] = [];
    for (let n = 0; n < items; n++) {
      const fresh = new Map(ids.map((id) => [id, randomUUID()]));
      instance.push(randomUUID());
      counters.push(++counter);
      states.push(template.engine_state.replace(uuidPattern, (id) => fresh.get(id) ?? id));
      incidents.push(fresh.get(template.incident_id) ?? randomUUID());
      waits.push(fresh.get(template.wait_id) ?? randomUUID());
    }
    await pool.query(
      `WITH copies AS (
         INSERT INTO process_instances (id, org_id, definition_id, process_key, counter, business_key, state, variables, engine_state, started_at)
         SELECT c.id, $1, $2, 'shipping', c.counter, $8, 'incident', '{}', c.engine_state::jsonb, now()
         FROM unnest($3::uuid[], $4::bigint[], $5::text[]) AS c(id, counter, engine_state)
         RETURNING id)
       INSERT INTO incidents (id, org_id, process_instance_id, activity_id, kind, wait_id, message)
       SELECT i.id, $1, i.instance_id, 'charge', 'jobFailed', i.wait_id, 'declined'
       FROM unnest($6::uuid[], $3::uuid[], $7::uuid[]) AS i(id, instance_id, wait_id)`,
      [orgId, v1, instance, counters, states, incidents, waits, businessKey],
    );
    await pool.query('UPDATE process_keys SET last_counter = $1 WHERE org_id = $2', [counter, orgId]);
  };

  let round = 0;
  return {
    round: async (): Promise<Round> => {
      const businessKey = `round-${++round}`;
      await copies(businessKey);
      let began = Date.now();
      const retried = await call('POST', '/api/v1/batches', {
        org_id: orgId,
        type: 'retryIncidents',
        filter: { business_key: businessKey, state: 'incident' },
      });
      const retry = await completion(pool, retried.id ?? '', began);
      began = Date.now();
      const migrated = (await call('POST', '/api/v1/migrations/execute', {
        plan: { source_definition_id: v1, target_definition_id: v2 },
        filter: { business_key: businessKey, definition_id: v1 },
      })) as unknown as { batch: { id: string } };
      const migrate = await completion(pool, migrated.batch.id, began);
      return { retry, migrate };
    },
    close: async () => {
      await pool.end();
      await server.stop();
    },
  };
}

/** The floor: `items` single-row updates by primary key, `chunk` per transaction, one connection. */
async function openFloor(url: string) {
  const pool = createPool(url, { max: 1, applicationName: 'bench-batch-floor' });
  await pool.query(
    `CREATE TABLE floor_items (id uuid PRIMARY KEY, state text NOT NULL, finished_at timestamptz)`,
  );
  return {
    round: async (): Promise<Round> => {
      const ids = Array.from({ length: items }, () => randomUUID());
      await pool.query(`INSERT INTO floor_items (id, state) SELECT unnest($1::uuid[]), 'pending'`, [ids]);
      const began = Date.now();
      const client = await pool.connect();
      try {
        for (let start = 0; start < ids.length; start += chunk) {
          await client.query('BEGIN');
          for (const id of ids.slice(start, start + chunk))
            await client.query({
              name: 'floor-update',
              text: `UPDATE floor_items SET state = 'done', finished_at = now() WHERE id = $1`,
              values: [id],
            });
          await client.query('COMMIT');
        }
      } finally {
        client.release();
      }
      const perSecond = items / ((Date.now() - began) / 1000);
      return { retry: perSecond, migrate: perSecond };
    },
    close: () => pool.end(),
  };
}

const server = await startBenchServer();
try {
  const batchUrl = await server.createDatabase('weft_bench_batch');
  await prepareWorkflowBenchDatabase(batchUrl);
  const floorUrl = await server.createDatabase('weft_bench_batch_floor');
  const floor = await openFloor(floorUrl);
  const batches = await openBatches(batchUrl);
  const [retries, migrations] = await (async () => {
    try {
      const retry = await interleave(
        rounds,
        () => floor.round(),
        () => batches.round(),
        (r) => r.retry,
      );
      const ratios = retry.floors.map((f, i) => (retry.subjects[i]?.migrate ?? 0) / f.migrate);
      return [
        retry,
        { ...retry, ratios, ratio: [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)] ?? 0 },
      ];
    } finally {
      await Promise.all([floor.close(), batches.close()]);
    }
  })();
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(`\nbench:batch — ${rounds} alternating rounds of ${items} items, chunks of ${chunk}`);
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${server.describe}, load ${os.loadavg()[0]?.toFixed(1)}\n`,
  );
  console.log(
    `floor (single-row UPDATEs, ${chunk} per transaction)  ${mean(retries.floors.map((r) => r.retry))
      .toFixed(0)
      .padStart(6)} rows/s`,
  );
  console.log(
    `retryIncidents batch                          ${mean(retries.subjects.map((r) => r.retry))
      .toFixed(0)
      .padStart(6)} items/s`,
  );
  console.log(
    `migrate batch (v1 → v2)                       ${mean(migrations.subjects.map((r) => r.migrate))
      .toFixed(0)
      .padStart(6)} items/s`,
  );
  for (const [name, result] of [
    ['retry', retries],
    ['migrate', migrations],
  ] as const)
    console.log(
      `${name} / floor  ${result.ratio.toFixed(2)}   (rounds ${result.ratios.map((r) => r.toFixed(2)).join(' ')}; target ≥ 0.30)`,
    );
} finally {
  await server.stop();
}
