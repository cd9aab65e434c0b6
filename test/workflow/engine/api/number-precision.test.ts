import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { variablesOf } from './event-helpers.js';

describe('workflow variables: a number a 64-bit float cannot hold is 400 naming the variable, never rounded', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('payment.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  /** Sends `json` as written: a JavaScript number could not carry these digits to the server. */
  const send = (url: string, json: string) =>
    f.workflow.request({
      method: 'POST',
      url,
      token: f.tokens.operator,
      body: json,
      headers: { 'content-type': 'application/json' },
    });
  const startWith = (variables: string, businessKey: string) =>
    send(
      '/api/v1/process-instances',
      `{"org_id":"${f.orgId}","process_key":"payment","business_key":"${businessKey}","variables":${variables}}`,
    );
  const instancesWith = async (businessKey: string) =>
    (
      await f.workflow.database.pool.query('SELECT 1 FROM process_instances WHERE business_key = $1', [
        businessKey,
      ])
    ).rowCount;

  test('a start with such a variable is refused and starts nothing', async () => {
    for (const [variables, path, becomes] of [
      ['{"amount":9007199254740993}', 'body.variables.amount', '9007199254740992'],
      ['{"rate":0.1234567890123456789}', 'body.variables.rate', '0.12345678901234568'],
      ['{"order":{"lines":[{"qty":1},{"total":1e400}]}}', 'body.variables.order.lines.1.total', 'Infinity'],
      ['{"tiny":1e-400}', 'body.variables.tiny', '0'],
    ] as const) {
      const response = await startWith(variables, 'precision-refused');
      assert.equal(response.statusCode, 400, `${variables}: ${response.body}`);
      const body = response.json() as {
        code: string;
        details: { errors: { path: string; message: string }[] };
      };
      assert.equal(body.code, 'U400');
      assert.equal(body.details.errors[0]?.path, path);
      assert.match(body.details.errors[0]?.message ?? '', new RegExp(`would be stored as ${becomes}`));
    }
    assert.equal(await instancesWith('precision-refused'), 0);
  });

  test('messages, signals and variable updates refuse them too', async () => {
    const started = await f.start('payment', {});
    for (const [method, url, json] of [
      [
        'POST',
        '/api/v1/messages',
        `{"org_id":"${f.orgId}","message_name":"m","variables":{"n":12345678901234567}}`,
      ],
      [
        'POST',
        '/api/v1/signals',
        `{"org_id":"${f.orgId}","signal_name":"s","variables":{"n":12345678901234567}}`,
      ],
      ['PATCH', `/api/v1/process-instances/${started.id}/variables`, '{"variables":{"n":12345678901234567}}'],
    ] as const) {
      const response = await f.workflow.request({
        method,
        url,
        token: f.tokens.operator,
        body: json,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      assert.match(response.body, /body\.variables\.n/);
    }
    assert.equal((await variablesOf(f, started.id)).n, undefined);
  });

  test('numbers a double holds are taken as before, as are digits inside strings', async () => {
    const response = await startWith(
      '{"big":9007199254740991,"tenth":0.1,"huge":1e21,"small":1.5e-10,"neg":-2.5,"id":"12345678901234567890"}',
      'precision-fine',
    );
    assert.equal(response.statusCode, 201, response.body);
    const variables = await variablesOf(f, (response.json() as { id: string }).id);
    assert.deepEqual(
      { ...variables },
      {
        big: 9007199254740991,
        tenth: 0.1,
        huge: 1e21,
        small: 1.5e-10,
        neg: -2.5,
        id: '12345678901234567890',
      },
    );
  });
});
