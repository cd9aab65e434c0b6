import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from '../engine/api/engine-fixture.js';

/** The `weft_process_instances_open` samples of a scrape, as `state → count` for the key `payment`. */
function openCounts(exposition: string, orgId: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of exposition.split('\n')) {
    const match = /^weft_process_instances_open\{(.*)\} (\d+)$/.exec(line);
    if (!match?.[1] || !match[1].includes(`org_id="${orgId}"`) || !match[1].includes('process_key="payment"'))
      continue;
    const state = /state="([a-z]+)"/.exec(match[1])?.[1] ?? '?';
    counts[state] = Number(match[2]);
  }
  return counts;
}

describe('gauges of running and incident instances per org and key', () => {
  let f: EngineFixture;
  let now = new Date('2026-11-24T08:00:00Z');
  before(async () => {
    f = await createEngineFixture({}, { now: () => now });
    assert.equal((await f.deploy('payment.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const scrape = async () => {
    const response = await f.workflow.request({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 200);
    return openCounts(response.body, f.orgId);
  };

  test('count the database’s open instances, at most once per 15 s however often scraped', async () => {
    const first = await f.start('payment', { amount: 10 });
    await f.start('payment', { amount: 20 });
    assert.deepEqual(await scrape(), { running: 2 });
    await f.workflow.database.pool.query(`UPDATE process_instances SET state = 'incident' WHERE id = $1`, [
      first.id,
    ]);
    // The same count answers every scrape within 15 s: no count(*) per scrape.
    assert.deepEqual(await scrape(), { running: 2 });
    now = new Date(now.getTime() + 15_000);
    assert.deepEqual(await scrape(), { running: 1, incident: 1 });
    await f.workflow.database.pool.query(
      `UPDATE process_instances SET state = 'completed', ended_at = now()`,
    );
    now = new Date(now.getTime() + 15_000);
    assert.deepEqual(await scrape(), {}, 'finished instances leave the gauge');
  });

  test('the count reads the partial index of open instances, not the whole table', async () => {
    const client = await f.workflow.database.pool.connect();
    try {
      // A table this small is cheapest to scan; forbid that to see which index the planner would use.
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT org_id, process_key, state, count(*) FROM process_instances
         WHERE state IN ('running', 'incident') GROUP BY org_id, process_key, state`,
      );
      assert.match(rows.map((row) => row['QUERY PLAN']).join('\n'), /process_instances_open_state_idx/);
    } finally {
      await client.query('RESET enable_seqscan');
      client.release();
    }
  });
});
