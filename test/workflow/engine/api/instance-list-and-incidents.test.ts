import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

interface Listed {
  id: string;
  state: string;
}
interface ListedIncident {
  id: string;
  process_instance_id: string;
  process_key: string;
  activity_id: string;
  message: string;
}

describe('instance list filters and keyset paging; the org incident list', () => {
  let f: EngineFixture;
  const failed: string[] = [];
  const waiting: string[] = [];
  let completed: string;

  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('payment.bpmn')).statusCode, 201);
    assert.equal((await f.deploy('scripts-only.bpmn')).statusCode, 201);
    for (let n = 0; n < 5; n += 1) waiting.push((await f.start('payment', { n })).id);
    completed = (await f.start('pricing', { price: 1, quantity: 2 })).id;
    for (const task of (await f.fetch('worker-1', 'charge', 2)).slice(0, 2)) {
      const response = await f.workflow.request({
        method: 'POST',
        url: `/api/v1/external-tasks/${task.id}/failure`,
        body: {
          worker_id: 'worker-1',
          error_message: `Card 100%_declined for ${task.process_instance_id}`,
          retries: 0,
          retry_timeout_ms: 0,
        },
      });
      assert.equal(response.statusCode, 204, response.body);
      failed.push(task.process_instance_id);
    }
  });
  after(() => f.close());

  async function list(query: string, token = f.tokens.reader) {
    const response = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/process-instances?org_id=${f.orgId}${query}`,
      token,
    });
    return response;
  }

  test('element_id lists the open instances with a token at that element', async () => {
    const atCharge = (await list('&element_id=charge')).json() as Listed[];
    assert.deepEqual(atCharge.map((i) => i.id).sort(), [...waiting].sort());
    assert.deepEqual((await list('&element_id=start')).json(), []);
  });

  test('has_incident selects the instances with or without an open incident', async () => {
    const withIncident = (await list('&has_incident=true')).json() as Listed[];
    assert.deepEqual(withIncident.map((i) => i.id).sort(), [...failed].sort());
    const without = await list('&has_incident=false');
    assert.equal(without.headers['x-total-count'], '4');
    assert.ok(!(without.json() as Listed[]).some((i) => failed.includes(i.id)));
  });

  test('started_after and started_before bound the start time', async () => {
    // The API's millisecond time is at or just before the stored microsecond one.
    const at = (await f.instance(completed)).started_at as string;
    const from = (await list(`&started_after=${at}`)).json() as Listed[];
    assert.deepEqual(
      from.map((i) => i.id),
      [completed],
    );
    const before = await list(`&started_before=${at}`);
    assert.equal(before.headers['x-total-count'], '5');
  });

  test('cursor pages through the list in the same order as offset, without repeats, then stops', async () => {
    const all = (await list('&limit=500')).json() as Listed[];
    assert.equal(all.length, 6);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const response = await list(`&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['x-total-count'], '6', 'the total is the whole filter');
      seen.push(...(response.json() as Listed[]).map((i) => i.id));
      cursor = response.headers['x-next-cursor'] as string | undefined;
      if (!cursor) break;
    }
    assert.deepEqual(
      seen,
      all.map((i) => i.id),
    );
    const offset = (await list('&limit=2&offset=2')).json() as Listed[];
    assert.deepEqual(
      offset.map((i) => i.id),
      seen.slice(2, 4),
      'offset paging still works',
    );
  });

  test('a cursor it did not hand out, or a cursor with an offset, is a 400', async () => {
    const forged = await list('&cursor=bm90LWEtY3Vyc29y');
    assert.equal(forged.statusCode, 400);
    const first = await list('&limit=1');
    const both = await list(`&limit=1&offset=1&cursor=${first.headers['x-next-cursor'] as string}`);
    assert.equal(both.statusCode, 400);
  });

  async function incidents(query: string, token = f.tokens.reader) {
    return f.workflow.request({ method: 'GET', url: `/api/v1/incidents?org_id=${f.orgId}${query}`, token });
  }

  test('GET /api/v1/incidents lists the open incidents of the org with their instance, filtered by element and message', async () => {
    const response = await incidents('');
    assert.equal(response.statusCode, 200, response.body);
    const items = response.json() as ListedIncident[];
    assert.deepEqual(items.map((i) => i.process_instance_id).sort(), [...failed].sort());
    assert.ok(items.every((i) => i.activity_id === 'charge' && i.process_key === 'payment'));
    assert.equal(((await incidents('&element_id=review')).json() as unknown[]).length, 0);
    const byText = (
      await incidents(`&error=${encodeURIComponent(`100%_DECLINED for ${failed[0]}`)}`)
    ).json() as ListedIncident[];
    assert.deepEqual(
      byText.map((i) => i.process_instance_id),
      [failed[0]],
    );
    assert.equal(((await incidents('&error=100%25x')).json() as unknown[]).length, 0, '% is literal');
  });

  test('the incident list pages by cursor and forgets resolved incidents', async () => {
    const first = await incidents('&limit=1');
    const next = first.headers['x-next-cursor'] as string;
    const second = await incidents(`&limit=1&cursor=${next}`);
    const ids = [...(first.json() as ListedIncident[]), ...(second.json() as ListedIncident[])].map(
      (i) => i.process_instance_id,
    );
    assert.deepEqual(ids.sort(), [...failed].sort());
    const retried = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${failed[0]}/retry`,
      token: f.tokens.operator,
    });
    assert.equal(retried.statusCode, 200, retried.body);
    const left = (await incidents('')).json() as ListedIncident[];
    assert.deepEqual(
      left.map((i) => i.process_instance_id),
      [failed[1]],
    );
  });

  test('the incident list is for the org readers only', async () => {
    assert.equal((await incidents('', f.tokens.outsider)).statusCode, 403);
    assert.equal((await incidents('', f.tokens.operator)).statusCode, 200);
  });
});
