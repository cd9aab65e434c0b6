import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

describe('modifying running instances through the API', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('operations.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const modify = (id: string, body: unknown, token = f.tokens.operator) =>
    f.workflow.request({ method: 'POST', url: `/api/v1/process-instances/${id}/modification`, token, body });
  const history = async (id: string) =>
    (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances/${id}/history`,
        token: f.tokens.reader,
      })
    ).json() as { kind: string; element_id: string; data: Record<string, unknown> }[];
  const openTasks = async (instanceId: string) =>
    (
      (
        await f.workflow.request({
          method: 'GET',
          url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instanceId}`,
          token: f.tokens.reader,
        })
      ).json() as unknown[]
    ).length;

  test('moving the token from the external task to a user task: one call, history shows the actor', async () => {
    const instance = await f.start('ops', { amount: 3 });
    const before = await f.instance(instance.id);
    const modified = await modify(instance.id, {
      instructions: [
        { type: 'cancelActivity', activity_id: 'pay' },
        { type: 'startBeforeActivity', activity_id: 'approve' },
      ],
      variables: { paidBy: 'operator' },
    });
    assert.equal(modified.statusCode, 200, modified.body);
    const detail = await f.instance(instance.id);
    assert.deepEqual(detail.active_element_ids, ['approve']);
    assert.equal(detail.counter, before.counter, 'the counter stays');
    assert.deepEqual(detail.variables, { amount: 3, paidBy: 'operator' });
    assert.deepEqual(
      await f.fetch('w1', 'opsPay', 50).then((t) => t.filter((x) => x.process_instance_id === instance.id)),
      [],
    );
    assert.equal(await openTasks(instance.id), 1);
    const entries = await history(instance.id);
    const entry = entries.find((e) => e.kind === 'modified');
    assert.ok(entry, 'a modified entry');
    assert.equal(typeof entry.data.actor, 'string');
    assert.deepEqual(entry.data.instructions, [
      { type: 'cancelActivity', activityId: 'pay' },
      { type: 'startBeforeActivity', activityId: 'approve' },
    ]);
    assert.ok(
      entries.some((e) => e.kind === 'instanceStarted'),
      'earlier history stays',
    );
  });

  test('the detail shows token ids, and cancelling the last one ends the instance as cancelled', async () => {
    const instance = await f.start('opsWait');
    const detail = (await f.instance(instance.id)) as unknown as {
      tokens: { id: string; element_id: string }[];
    };
    assert.equal(detail.tokens.length, 1);
    const token = detail.tokens[0];
    assert.equal(token?.element_id, 'ping');
    const modified = await modify(instance.id, {
      instructions: [{ type: 'cancelToken', token_id: token?.id }],
    });
    assert.equal(modified.statusCode, 200, modified.body);
    assert.equal((modified.json() as { state: string }).state, 'cancelled');
  });

  test('an invalid plan is refused with every problem listed and nothing applied', async () => {
    const instance = await f.start('ops');
    const before = await history(instance.id);
    const refused = await modify(instance.id, {
      instructions: [
        { type: 'startBeforeActivity', activity_id: 'nope' },
        { type: 'cancelActivity', activity_id: 'pay' },
        { type: 'startAfterActivity', activity_id: 'e1' },
        { type: 'cancelActivity', activity_id: 'done' },
      ],
    });
    assert.equal(refused.statusCode, 400, refused.body);
    const body = refused.json() as { code: string; details: { problems: string[] } };
    assert.equal(body.code, 'U400');
    assert.equal(body.details.problems.length, 3);
    assert.match(body.details.problems[0] ?? '', /instruction 0: .*'nope'/);
    assert.match(body.details.problems[1] ?? '', /instruction 2: .*outgoing/);
    assert.match(body.details.problems[2] ?? '', /instruction 3: no token is at 'done'/);
    assert.deepEqual(await history(instance.id), before, 'nothing was written');
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['pay']);
  });

  test('bad input answers 400, never 500: empty list, wrong types, missing fields', async () => {
    const instance = await f.start('opsWait');
    for (const body of [
      { instructions: [] },
      {},
      { instructions: 'cancel' },
      { instructions: [{ type: 'teleport', activity_id: 'ping' }] },
      { instructions: [{ type: 'cancelActivity', activity_id: 7 }] },
      { instructions: [{ type: 'startBeforeActivity', activity_id: 'after' }], variables: [1] },
      { instructions: [{ type: 'startBeforeActivity', activity_id: 'after' }], extra: true },
    ]) {
      const answer = await modify(instance.id, body);
      assert.equal(answer.statusCode, 400, `${JSON.stringify(body)}: ${answer.body}`);
      assert.equal((answer.json() as { code: string }).code, 'U400');
    }
    const missing = await modify(instance.id, {
      instructions: [{ type: 'cancelToken' }, { type: 'startBeforeActivity' }],
    });
    assert.equal(missing.statusCode, 400);
    assert.deepEqual((missing.json() as { details: { problems: string[] } }).details.problems, [
      'instruction 0: cancelToken needs token_id',
      'instruction 1: startBeforeActivity needs activity_id',
    ]);
  });

  test('a Reader gets 403, an unknown instance 404, an ended or suspended one 409', async () => {
    const instance = await f.start('opsWait');
    const plan = { instructions: [{ type: 'startBeforeActivity', activity_id: 'after' }] };
    assert.equal((await modify(instance.id, plan, f.tokens.reader)).statusCode, 403);
    assert.equal((await modify('00000000-0000-4000-8000-000000000000', plan)).statusCode, 404);
    await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${instance.id}/suspend`,
      token: f.tokens.operator,
    });
    assert.equal((await modify(instance.id, plan)).statusCode, 409);
    await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${instance.id}/cancel`,
      token: f.tokens.operator,
    });
    assert.equal((await modify(instance.id, plan)).statusCode, 409);
  });
});
