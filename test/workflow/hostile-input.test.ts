import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createEngineFixture, type EngineFixture } from './engine/api/engine-fixture.js';

const bpmnNamed = (name: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="Defs" targetNamespace="urn:weft:test">
  <bpmn:process id="hostile" name="${name}" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;

const dmnNamed = (name: string) => `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="Hostile" namespace="urn:weft:test">
  <decision id="hostile" name="${name}">
    <literalExpression id="e"><text>1</text></literalExpression>
  </decision>
</definitions>`;

// JSON text nested `depth` objects deep (JSON.stringify itself overflows near 5,000 levels).
const nestedJson = (depth: number) => `${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;

/** The regressions of issue 16's "server errors" list that reach the workflow service. */
describe('workflow refuses input PostgreSQL cannot take with 400, not 500', () => {
  let fixture: EngineFixture;
  let admin: string;
  let orgId: string;
  const send = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
    fixture.workflow.request({ method, url, token: admin, body, ...(headers ? { headers } : {}) });
  const assertRefused = (response: LightMyRequestResponse, what: string, status = 400) => {
    assert.equal(response.statusCode, status, `${what}: ${response.body}`);
    const body = response.json() as { code: string; message: string };
    assert.equal(body.code, `U${status}`, what);
    assert.equal(typeof body.message, 'string', what);
  };

  before(async () => {
    fixture = await createEngineFixture();
    admin = fixture.tokens.admin;
    orgId = fixture.orgId;
  });
  after(() => fixture.close());

  test('NUL in names, login email, variables, message names, external-task fields and query values', async () => {
    const cases: [string, Promise<LightMyRequestResponse>][] = [
      ['org name', send('POST', '/api/v1/orgs', { name: 'Ac\u0000me', slug: 'nul-org' })],
      [
        'login email',
        fixture.workflow.request({
          method: 'POST',
          url: '/api/v1/auth/login',
          body: { email: 'a\u0000@example.com', password: 'whatever password' },
        }),
      ],
      ['process group name', send('POST', `/api/v1/orgs/${orgId}/process-groups`, { name: 'Gr\u0000oup' })],
      [
        'variables',
        send('POST', '/api/v1/process-instances', {
          org_id: orgId,
          process_key: 'anything',
          variables: { note: 'a\u0000b' },
        }),
      ],
      [
        'variable name',
        send('POST', '/api/v1/messages', { org_id: orgId, message_name: 'm', variables: { 'a\u0000': 1 } }),
      ],
      ['message name', send('POST', '/api/v1/messages', { org_id: orgId, message_name: 'pay\u0000ment' })],
      [
        'external-task worker id',
        send('POST', '/api/v1/external-tasks/fetch-and-lock', {
          worker_id: 'w\u0000',
          max_tasks: 1,
          topics: [{ topic_name: 't\u0000', lock_duration_ms: 1000 }],
        }),
      ],
      ['query value', send('GET', `/api/v1/process-instances?org_id=${orgId}&business_key=a%00b`)],
      [
        'decision key in the path',
        send('POST', '/api/v1/decisions/disc%00ount/evaluate', { variables: {} }, { 'x-org-id': orgId }),
      ],
    ];
    for (const [what, pending] of cases) assertRefused(await pending, what);
  });

  test('a lone surrogate in JSON variables is refused and named', async () => {
    const response = await send(
      'POST',
      '/api/v1/process-instances',
      `{"org_id":"${orgId}","process_key":"anything","variables":{"note":"x\\ud800y"}}`,
      { 'content-type': 'application/json' },
    );
    assertRefused(response, 'lone surrogate');
    const details = (response.json() as { details: { errors: { path: string }[] } }).details;
    assert.equal(details.errors[0]?.path, 'body.variables.note');
  });

  test('&#0; or a surrogate reference inside BPMN or DMN is refused at deploy', async () => {
    for (const name of ['a&#0;b', 'a&#x0;b', 'a&#xD800;b']) {
      const bpmn = await send('POST', '/api/v1/deployments', {
        org_id: orgId,
        process_group_id: fixture.groupId,
        xml: bpmnNamed(name),
      });
      assert.ok(bpmn.statusCode >= 400 && bpmn.statusCode < 500, `BPMN ${name}: ${bpmn.body}`);
      assert.match(bpmn.body, /character reference/);
      const dmn = await send('POST', '/api/v1/decisions', { xml: dmnNamed(name) }, { 'x-org-id': orgId });
      assert.ok(dmn.statusCode >= 400 && dmn.statusCode < 500, `DMN ${name}: ${dmn.body}`);
      assert.match(dmn.body, /character reference/);
    }
  });

  test('a buffered message for an organisation that does not exist is a 4xx', async () => {
    const response = await send('POST', '/api/v1/messages', {
      org_id: '00000000-0000-4000-8000-000000000000',
      message_name: 'nobody-waits',
      time_to_live_ms: 60_000,
    });
    assert.ok(response.statusCode >= 400 && response.statusCode < 500, response.body);
    assert.match((response.json() as { code: string }).code, /^U4\d\d$/);
  });

  test('an offset of 2^63 or more on the instance list is 400', async () => {
    for (const offset of ['9223372036854775808', '1e308', '18446744073709551616']) {
      assertRefused(
        await send('GET', `/api/v1/process-instances?org_id=${orgId}&offset=${offset}`),
        `offset ${offset}`,
      );
    }
  });

  test('variables nested 5,000 deep are refused with the limit named; 100 levels are accepted', async () => {
    const json = { 'content-type': 'application/json' };
    const deep = await send(
      'POST',
      '/api/v1/messages',
      `{"org_id":"${orgId}","message_name":"deep","variables":{"v":${nestedJson(5000)}}}`,
      json,
    );
    assertRefused(deep, 'deep variables');
    assert.match(deep.body, /deeper than 128 levels/);
    const fine = await send(
      'POST',
      '/api/v1/messages',
      `{"org_id":"${orgId}","message_name":"deep","time_to_live_ms":60000,"variables":{"v":${nestedJson(100)}}}`,
      json,
    );
    assert.equal(fine.statusCode, 200, fine.body);
  });
});
