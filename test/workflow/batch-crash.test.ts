import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createMigratedDatabase, type TestDatabase } from '../helpers/database.js';
import {
  admin,
  startService as startServiceProcess,
  waitFor,
  type Service,
} from '../helpers/workflow-processes.js';

/** Instances with an incident the batch retries; BATCH_CRASH_ITEMS overrides it. */
const ITEMS = Number(process.env.BATCH_CRASH_ITEMS ?? 10_000);

describe('a retry batch across a SIGKILL of the workflow process', () => {
  let db: TestDatabase;
  let dataDir: string;
  let service: Service;
  let token = '';
  let orgId: string;

  const startService = () => startServiceProcess('batch', { databaseUrl: db.url, dataDir });
  const kill = async (target: Service) => {
    const exited = new Promise((resolve) => target.child.once('exit', resolve));
    target.child.kill('SIGKILL');
    await exited;
  };
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${service.base}${url}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text, json: () => JSON.parse(text) as Record<string, unknown> };
  };
  const doneItems = async () =>
    Number(
      (await db.pool.query<{ n: string }>("SELECT count(*) AS n FROM batch_items WHERE state <> 'pending'"))
        .rows[0]?.n,
    );

  /**
   * One instance whose charge task failed for good (an open `jobFailed` incident), then copied with
   * fresh ids until there are ITEMS of them: starting 10,000 through the API would take most of the
   * test's time, and the batch only needs instances in that state.
   */
  const instancesWithIncidents = async () => {
    const start = await call('POST', '/api/v1/process-instances', { org_id: orgId, process_key: 'shipping' });
    assert.equal(start.status, 201, start.body);
    const fetched = await call('POST', '/api/v1/external-tasks/fetch-and-lock', {
      worker_id: 'w',
      max_tasks: 1,
      topics: [{ topic_name: 'charge', lock_duration_ms: 60_000 }],
    });
    const [task] = JSON.parse(fetched.body) as { id: string }[];
    assert.ok(task);
    const failed = await call('POST', `/api/v1/external-tasks/${task.id}/failure`, {
      worker_id: 'w',
      error_message: 'declined',
      retries: 0,
      retry_timeout_ms: 0,
    });
    assert.equal(failed.status, 204, failed.body);
    const template = (
      await db.pool.query<{
        id: string;
        definition_id: string;
        engine_state: string;
        incident_id: string;
        wait_id: string;
      }>(
        `SELECT p.id, p.definition_id, p.engine_state::text AS engine_state, i.id AS incident_id, i.wait_id
         FROM process_instances p JOIN incidents i ON i.process_instance_id = p.id WHERE p.state = 'incident'`,
      )
    ).rows[0];
    assert.ok(template);
    const ids = [
      ...new Set(
        template.engine_state.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g),
      ),
    ];
    const columns = {
      id: [] as string[],
      counter: [] as number[],
      state: [] as string[],
      incident: [] as string[],
      wait: [] as string[],
    };
    for (let n = 2; n <= ITEMS; n++) {
      const fresh = new Map(ids.map((id) => [id, randomUUID()]));
      columns.id.push(randomUUID());
      columns.counter.push(n);
      columns.state.push(
        template.engine_state.replace(
          /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
          (id) => fresh.get(id) ?? id,
        ),
      );
      columns.incident.push(fresh.get(template.incident_id) ?? randomUUID());
      columns.wait.push(fresh.get(template.wait_id) ?? randomUUID());
    }
    await db.pool.query(
      `WITH copies AS (
         INSERT INTO process_instances (id, org_id, definition_id, process_key, counter, state, variables, engine_state, started_at)
         SELECT c.id, $1, $2, 'shipping', c.counter, 'incident', '{}', c.engine_state::jsonb, now()
         FROM unnest($3::uuid[], $4::bigint[], $5::text[]) AS c(id, counter, engine_state)
         RETURNING id)
       INSERT INTO incidents (id, org_id, process_instance_id, activity_id, kind, wait_id, message)
       SELECT i.id, $1, i.instance_id, 'charge', 'jobFailed', i.wait_id, 'declined'
       FROM unnest($6::uuid[], $3::uuid[], $7::uuid[]) AS i(id, instance_id, wait_id)`,
      [
        orgId,
        template.definition_id,
        columns.id,
        columns.counter,
        columns.state,
        columns.incident,
        columns.wait,
      ],
    );
    await db.pool.query(`UPDATE process_keys SET last_counter = $1 WHERE org_id = $2`, [ITEMS, orgId]);
  };

  before(async () => {
    db = await createMigratedDatabase('workflow');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-batch-crash-'));
    service = await startService();
    const login = await call('POST', '/api/v1/auth/login', admin);
    token = String(login.json().access_token);
    orgId = String((await call('POST', '/api/v1/orgs', { name: 'Crash', slug: 'crash' })).json().id);
    const group = await call('POST', `/api/v1/orgs/${orgId}/process-groups`, { name: 'default' });
    const xml = await readFile(new URL('./engine/api/fixtures/migrate-v1.bpmn', import.meta.url), 'utf8');
    const deployed = await call('POST', '/api/v1/deployments', {
      org_id: orgId,
      process_group_id: String(group.json().id),
      xml,
    });
    assert.equal(deployed.status, 201, deployed.body);
    await instancesWithIncidents();
  });
  after(async () => {
    if (service?.child.exitCode === null) await kill(service);
    await rm(dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  test(`a batch of ${ITEMS} retries killed halfway completes after a restart, each item exactly once`, async () => {
    console.log(`batch crash test: ${ITEMS} items`);
    const began = Date.now();
    const created = await call('POST', '/api/v1/batches', {
      org_id: orgId,
      type: 'retryIncidents',
      filter: { state: 'incident' },
    });
    assert.equal(created.status, 201, created.body);
    const batchId = String(created.json().id);
    assert.equal(created.json().total, ITEMS);

    await waitFor('part of the batch to be done', async () => (await doneItems()) >= ITEMS * 0.3, 120_000);
    await kill(service);
    const atKill = await doneItems();
    console.log(`killed with ${atKill} of ${ITEMS} items done after ${Date.now() - began} ms`);
    assert.ok(atKill < ITEMS, 'the batch was not finished when the service was killed');

    service = await startService();
    await waitFor(
      'the batch to complete',
      async () => (await call('GET', `/api/v1/batches/${batchId}`)).json().state === 'completed',
      180_000,
    );
    console.log(`batch completed ${Date.now() - began} ms after it was created`);
    const batch = (await call('GET', `/api/v1/batches/${batchId}`)).json();
    assert.deepEqual(
      [batch.total, batch.done, batch.failed],
      [ITEMS, ITEMS, 0],
      JSON.stringify(batch.failures),
    );

    // Each instance: its incident resolved once (a second retry would have failed its item, and a
    // lost one would leave it open), one incidentResolved history entry, one new external task.
    const { rows } = await db.pool.query<{ shape: string; n: string }>(
      `SELECT concat_ws('/', p.state,
                (SELECT count(*) FROM incidents i WHERE i.process_instance_id = p.id AND i.resolved_at IS NOT NULL),
                (SELECT count(*) FROM incidents i WHERE i.process_instance_id = p.id AND i.resolved_at IS NULL),
                (SELECT count(*) FROM process_history h WHERE h.process_instance_id = p.id AND h.kind = 'incidentResolved'),
                (SELECT count(*) FROM external_tasks t WHERE t.process_instance_id = p.id)) AS shape,
              count(*) AS n
       FROM process_instances p GROUP BY 1`,
    );
    assert.deepEqual(rows, [{ shape: 'running/1/0/1/1', n: String(ITEMS) }]);
  });
});
