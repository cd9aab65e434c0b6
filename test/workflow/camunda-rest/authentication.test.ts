import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basic, createCamundaFixture, type CamundaFixture } from './camunda-fixture.js';

describe('/engine-rest authentication', () => {
  let fixture: CamundaFixture;
  before(async () => {
    fixture = await createCamundaFixture();
  });
  after(() => fixture.close());

  const list = (authorization: string | null) =>
    fixture.camunda({ method: 'GET', url: '/engine-rest/external-task/count', authorization });

  test('a Bearer JWT authenticates', async () => {
    const response = await list(`Bearer ${fixture.users.worker.jwt}`);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { count: 0 });
  });

  test('a Bearer API key authenticates', async () => {
    assert.equal((await list(`Bearer ${fixture.users.worker.apiKey}`)).statusCode, 200);
  });

  test('Basic email and password authenticate, again from the cache', async () => {
    const { email, password } = fixture.users.worker;
    assert.equal((await list(basic(email, password))).statusCode, 200);
    assert.equal((await list(basic(email, password))).statusCode, 200);
  });

  test('Basic with any user name and an API key as the password authenticates', async () => {
    assert.equal((await list(basic('demo', fixture.users.worker.apiKey))).statusCode, 200);
  });

  test('wrong or missing credentials are a 401 AuthenticationException asking for Basic', async () => {
    const { email, password } = fixture.users.worker;
    for (const authorization of [
      null,
      basic(email, 'wrong password'),
      basic(email, password.toUpperCase()),
      basic('nobody@example.com', password),
      basic('demo', 'ck_notakey'),
      'Basic !!!',
      'Bearer not-a-jwt',
      `Bearer ${fixture.users.worker.apiKey.slice(0, -1)}x`,
      'Digest abc',
    ]) {
      const response = await list(authorization);
      assert.equal(response.statusCode, 401, `${authorization}: ${response.body}`);
      assert.equal(response.headers['www-authenticate'], 'Basic realm="weft"');
      assert.equal(response.headers['content-type'], 'application/json');
      assert.equal((response.json() as { type: string }).type, 'AuthenticationException');
    }
  });

  test('a password changed is not accepted from the cache', async () => {
    const { email, password, jwt } = fixture.users.both;
    assert.equal((await list(basic(email, password))).statusCode, 200);
    const changed = await fixture.workflow.request({
      method: 'POST',
      url: '/api/v1/auth/change-password',
      token: jwt,
      body: { current_password: password, new_password: 'a brand new password' },
    });
    assert.equal(changed.statusCode, 204, changed.body);
    // The identity cache is emptied by the change's notification, which arrives asynchronously.
    const deadline = Date.now() + 5_000;
    let status = 200;
    while (Date.now() < deadline && status === 200) {
      status = (await list(basic(email, password))).statusCode;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(status, 401);
    assert.equal((await list(basic(email, 'a brand new password'))).statusCode, 200);
  });

  test('/engine and /version answer without credentials, and check those sent', async () => {
    const engine = await fixture.camunda({ method: 'GET', url: '/engine-rest/engine', authorization: null });
    assert.equal(engine.statusCode, 200);
    assert.deepEqual(engine.json(), [{ name: 'default' }]);
    const version = await fixture.camunda({
      method: 'GET',
      url: '/engine-rest/version',
      authorization: null,
    });
    assert.deepEqual(version.json(), { version: '7.23.0' });
    assert.equal(version.headers['content-type'], 'application/json');
    const wrong = await fixture.camunda({
      method: 'GET',
      url: '/engine-rest/version',
      authorization: basic(fixture.users.worker.email, 'wrong'),
    });
    assert.equal(wrong.statusCode, 401);
  });

  test('an unknown route is a 404 NotFoundException, not a 401', async () => {
    const response = await fixture.camunda({
      method: 'GET',
      url: '/engine-rest/no-such-thing',
      authorization: null,
    });
    assert.equal(response.statusCode, 404);
    assert.equal((response.json() as { type: string }).type, 'NotFoundException');
  });

  test('the /engine-rest routes are not in weft’s OpenAPI document', () => {
    const document = fixture.workflow.service.app.swagger() as { paths: Record<string, unknown> };
    assert.deepEqual(
      Object.keys(document.paths).filter((path) => path.startsWith('/engine-rest')),
      [],
    );
  });
});
