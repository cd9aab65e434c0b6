import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, fixtureXml, type EngineFixture } from './engine-fixture.js';

describe('deployments', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
  });
  after(() => f.close());

  test('deploying creates version 1, 2… per key; identical XML returns the latest version with 200', async () => {
    const first = await f.deploy('payment.bpmn');
    assert.equal(first.statusCode, 201, first.body);
    const v1 = first.json() as Record<string, unknown>;
    assert.equal(v1.process_key, 'payment');
    assert.equal(v1.version, 1);
    assert.equal(v1.name, 'Payment');
    assert.equal(v1.disabled, false);
    assert.equal(v1.draft, false);
    const again = await f.deploy('payment.bpmn');
    assert.equal(again.statusCode, 200);
    assert.equal((again.json() as { id: string }).id, v1.id);
    const changed = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: {
        org_id: f.orgId,
        process_group_id: f.groupId,
        xml: (await fixtureXml('payment.bpmn')).replace('Charge card', 'Charge the card'),
      },
    });
    assert.equal(changed.statusCode, 201);
    assert.equal((changed.json() as { version: number }).version, 2);
  });

  test('drafts are stored beside versions, never start, and cannot be disabled (409 U409)', async () => {
    const draft = await f.deploy('parallel.bpmn', { draft: true });
    assert.equal(draft.statusCode, 201);
    const body = draft.json() as { id: string; version: number | null; draft: boolean };
    assert.equal(body.version, null);
    assert.equal(body.draft, true);
    const disable = await f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/deployments/${body.id}/disabled`,
      token: f.tokens.developer,
      body: { disabled: true },
    });
    assert.equal(disable.statusCode, 409);
    assert.equal((disable.json() as { code: string }).code, 'U409');
    const start = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: f.tokens.operator,
      body: { org_id: f.orgId, definition_id: body.id },
    });
    assert.equal(start.statusCode, 409);
    const byKey = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: f.tokens.operator,
      body: { org_id: f.orgId, process_key: 'fanout' },
    });
    assert.equal(byKey.statusCode, 404, 'a key with only a draft has nothing to start');
  });

  test('a disabled version never starts; starting by key uses the latest enabled one', async () => {
    await f.deploy('scripts-only.bpmn');
    const list = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/deployments?org_id=${f.orgId}&process_key=payment`,
      token: f.tokens.reader,
    });
    const versions = list.json() as { id: string; version: number }[];
    assert.deepEqual(
      versions.map((v) => v.version),
      [2, 1],
      'newest first',
    );
    const [v2, v1] = versions;
    assert.ok(v1 && v2);
    const disabled = await f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/deployments/${v2.id}/disabled`,
      token: f.tokens.developer,
      body: { disabled: true },
    });
    assert.equal(disabled.statusCode, 200);
    assert.equal((disabled.json() as { disabled: boolean }).disabled, true);
    const started = await f.start('payment');
    assert.equal(started.definition_id, v1.id);
    const pinned = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: f.tokens.operator,
      body: { org_id: f.orgId, definition_id: v2.id },
    });
    assert.equal(pinned.statusCode, 409);
    await f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/deployments/${v1.id}/disabled`,
      token: f.tokens.developer,
      body: { disabled: true },
    });
    const none = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: f.tokens.operator,
      body: { org_id: f.orgId, process_key: 'payment' },
    });
    assert.equal(none.statusCode, 409);
    for (const version of [v1, v2]) {
      await f.workflow.request({
        method: 'PATCH',
        url: `/api/v1/deployments/${version.id}/disabled`,
        token: f.tokens.developer,
        body: { disabled: false },
      });
    }
    assert.equal((await f.start('payment')).definition_id, v2.id);
  });

  test('a start by key sees versions deployed, disabled and enabled since the last start, and counts without gaps', async () => {
    // The service keeps the latest enabled version of a key in memory; the start's own statement
    // re-checks it, so a change made elsewhere (here: without telling the instance service) is seen.
    const v1 = (await f.deploy('scripts-only.bpmn')).json() as { id: string };
    const definitionOf = async (id: string) =>
      ((await f.instance(id)) as unknown as { definition_id: string }).definition_id;
    const first = await f.start('pricing', { price: 1, quantity: 1 });
    assert.equal(await definitionOf(first.id), v1.id);
    const v2 = (
      await f.workflow.request({
        method: 'POST',
        url: '/api/v1/deployments',
        token: f.tokens.developer,
        body: {
          org_id: f.orgId,
          process_group_id: f.groupId,
          xml: (await fixtureXml('scripts-only.bpmn')).replace(
            'isExecutable="true"',
            'isExecutable="true" name="v2"',
          ),
        },
      })
    ).json() as { id: string; version: number };
    assert.equal(v2.version, 2);
    const second = await f.start('pricing', { price: 1, quantity: 1 });
    assert.equal(await definitionOf(second.id), v2.id, 'the new version starts at once');
    const setDisabled = async (id: string, disabled: boolean) =>
      assert.equal(
        (
          await f.workflow.request({
            method: 'PATCH',
            url: `/api/v1/deployments/${id}/disabled`,
            token: f.tokens.developer,
            body: { disabled },
          })
        ).statusCode,
        200,
      );
    await setDisabled(v2.id, true);
    const third = await f.start('pricing', { price: 1, quantity: 1 });
    assert.equal(await definitionOf(third.id), v1.id, 'a disabled version no longer starts');
    await setDisabled(v2.id, false);
    const fourth = await f.start('pricing', { price: 1, quantity: 1 });
    assert.equal(await definitionOf(fourth.id), v2.id, 'an enabled version starts again');
    await setDisabled(v1.id, true);
    await setDisabled(v2.id, true);
    const none = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: f.tokens.operator,
      body: { org_id: f.orgId, process_key: 'pricing' },
    });
    assert.equal(none.statusCode, 409);
    assert.deepEqual(
      [first, second, third, fourth].map((started) => started.counter),
      [1, 2, 3, 4],
      'stale attempts give their counter back',
    );
  });

  test('rename by key updates every version and draft in one statement (204)', async () => {
    const renamed = await f.workflow.request({
      method: 'PATCH',
      url: '/api/v1/deployments/by-key',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, process_key: 'payment', name: 'Card payment' },
    });
    assert.equal(renamed.statusCode, 204);
    const list = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/deployments?org_id=${f.orgId}&process_key=payment`,
        token: f.tokens.reader,
      })
    ).json() as { name: string }[];
    assert.ok(list.length >= 2);
    assert.ok(list.every((item) => item.name === 'Card payment'));
    const unknown = await f.workflow.request({
      method: 'PATCH',
      url: '/api/v1/deployments/by-key',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, process_key: 'nope', name: 'x' },
    });
    assert.equal(unknown.statusCode, 404);
  });

  test('GET /deployments/{id} returns the XML; roles are enforced', async () => {
    const list = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/deployments?org_id=${f.orgId}`,
        token: f.tokens.reader,
      })
    ).json() as { id: string }[];
    const one = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/deployments/${list[0]?.id}`,
      token: f.tokens.reader,
    });
    assert.equal(one.statusCode, 200);
    assert.match((one.json() as { xml: string }).xml, /<bpmn:definitions/);
    assert.equal((await f.deploy('payment.bpmn', { token: f.tokens.operator })).statusCode, 403);
    assert.equal((await f.deploy('payment.bpmn', { token: f.tokens.outsider })).statusCode, 403);
    const outsiderList = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/deployments?org_id=${f.orgId}`,
      token: f.tokens.outsider,
    });
    assert.equal(outsiderList.statusCode, 403);
  });

  test('a model the engine cannot run is rejected with 400 and every problem listed', async () => {
    const xml = `<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D" targetNamespace="urn:x">
  <bpmn:process id="broken" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:serviceTask id="noTopic" />
    <bpmn:adHocSubProcess id="cg" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="noTopic" />
    <bpmn:sequenceFlow id="f2" sourceRef="noTopic" targetRef="cg" />
    <bpmn:sequenceFlow id="f3" sourceRef="cg" targetRef="ghost" />
  </bpmn:process>
</bpmn:definitions>`;
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, xml },
    });
    assert.equal(response.statusCode, 400);
    const body = response.json() as {
      code: string;
      details: { errors: { element_id: string | null; message: string }[] };
    };
    assert.equal(body.code, 'U400');
    const ids = body.details.errors.map((error) => error.element_id);
    assert.ok(
      ids.includes('noTopic') && ids.includes('cg') && ids.includes('f3'),
      JSON.stringify(body.details.errors),
    );
    const none = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/deployments?org_id=${f.orgId}&process_key=broken`,
      token: f.tokens.reader,
    });
    assert.deepEqual(none.json(), []);
  });

  test('malformed XML, an XML bomb and a 10 MB upload are 4xx, never 500', async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"><bpmn:process id="p">&lol2;</bpmn:process></bpmn:definitions>`;
    for (const xml of ['<not-xml', 'plain text', bomb, 'x'.repeat(10 * 1024 * 1024)]) {
      const response = await f.workflow.request({
        method: 'POST',
        url: '/api/v1/deployments',
        token: f.tokens.developer,
        body: { org_id: f.orgId, process_group_id: f.groupId, xml },
      });
      assert.ok([400, 413].includes(response.statusCode), `${response.statusCode} for ${xml.slice(0, 30)}`);
    }
    const wrongGroup = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: {
        org_id: f.orgId,
        process_group_id: '00000000-0000-4000-8000-000000000000',
        xml: await fixtureXml('payment.bpmn'),
      },
    });
    assert.equal(wrongGroup.statusCode, 404);
  });
});
