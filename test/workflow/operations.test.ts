import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createMigratedDatabase } from '../helpers/database.js';
import { startTestWorkflow, type TestWorkflow } from '../helpers/workflow.js';

describe('operations endpoints and bad input', () => {
  let workflow: TestWorkflow;
  let token: string;
  before(async () => {
    workflow = await startTestWorkflow({ env: { WEFT_BODY_LIMIT_BYTES: '65536' } });
    await workflow.createUser('ops@example.com', 'ops password 1');
    token = await workflow.login('ops@example.com', 'ops password 1');
  });
  after(() => workflow.close());

  test('GET /health is public and reports the database', async () => {
    const response = await workflow.request({ method: 'GET', url: '/health' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ok', database: 'ok' });
  });

  test('GET /metrics is public Prometheus text with process metrics and per-route HTTP counters and histograms', async () => {
    await workflow.request({ method: 'GET', url: '/api/v1/me', token });
    const response = await workflow.request({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /text\/plain/);
    assert.match(response.body, /process_cpu_user_seconds_total/);
    assert.match(
      response.body,
      /http_requests_total\{[^}]*route="\/api\/v1\/me"[^}]*status_code="200"[^}]*\} \d+/,
    );
    assert.match(response.body, /http_request_duration_seconds_bucket\{[^}]*route="\/api\/v1\/me"/);
    assert.ok(!response.body.includes(token), 'no credential in metrics');
  });

  test('GET /api/v1/openapi.json needs a token (the spec does not list it as public)', async () => {
    const anonymous = await workflow.request({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(anonymous.statusCode, 401);
    assert.equal((anonymous.json() as { message: string }).message, 'Unauthenticated');
  });

  test('GET /api/v1/openapi.json is an OpenAPI 3 document of every route with its schemas', async () => {
    const response = await workflow.request({ method: 'GET', url: '/api/v1/openapi.json', token });
    assert.equal(response.statusCode, 200);
    const document = response.json() as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
    };
    assert.match(document.openapi, /^3\./);
    for (const [path, method] of [
      ['/api/v1/auth/login', 'post'],
      ['/api/v1/auth/change-password', 'post'],
      ['/api/v1/me', 'get'],
      ['/api/v1/api-keys', 'post'],
      ['/api/v1/api-keys/{id}', 'delete'],
      ['/api/v1/orgs', 'post'],
      ['/api/v1/users', 'post'],
      ['/api/v1/orgs/{org_id}/members/{user_id}', 'put'],
      ['/api/v1/orgs/{org_id}/process-groups', 'post'],
      ['/health', 'get'],
    ] as const) {
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
      assert.ok(Object.keys(operation.responses).length > 0);
    }
    assert.ok(document.paths['/api/v1/auth/login']?.post?.requestBody, 'request bodies are described');
  });

  test('unknown routes are 404 U404 in the error body, authenticated or not', async () => {
    for (const request of [
      { method: 'GET', url: '/api/v1/nope' },
      { method: 'POST', url: '/api/v1/nope', token },
      { method: 'DELETE', url: '/' },
    ]) {
      const response = await workflow.request(request);
      assert.equal(response.statusCode, 404);
      const body = response.json() as { code: string; message: string };
      assert.equal(body.code, 'U404');
      assert.equal(typeof body.message, 'string');
    }
  });

  test('oversized bodies are 413 in the error body', async () => {
    const response = await workflow.request({
      method: 'POST',
      url: '/api/v1/api-keys',
      token,
      body: { name: 'x'.repeat(100_000) },
    });
    assert.equal(response.statusCode, 413);
    assert.equal((response.json() as { code: string }).code, 'U413');
  });

  test('non-JSON content types, unknown fields and hostile payloads are 4xx, never 500, never a stack trace', async () => {
    const cases = [
      {
        method: 'POST',
        url: '/api/v1/api-keys',
        token,
        body: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
      { method: 'POST', url: '/api/v1/api-keys', token, body: { name: 'x', extra: true } },
      { method: 'POST', url: '/api/v1/api-keys', token, body: { name: { $ne: null } } },
      {
        method: 'POST',
        url: '/api/v1/api-keys',
        token,
        body: '{"__proto__": {"admin": true}, "name": "p"}',
        headers: { 'content-type': 'application/json' },
      },
      {
        method: 'POST',
        url: '/api/v1/api-keys',
        token,
        body: '[1,2,3]',
        headers: { 'content-type': 'application/json' },
      },
      {
        method: 'POST',
        url: '/api/v1/api-keys',
        token,
        body: 'null',
        headers: { 'content-type': 'application/json' },
      },
      {
        method: 'POST',
        url: '/api/v1/orgs',
        token,
        body: { name: "'; DROP TABLE users; --", slug: "x'; DROP TABLE users; --" },
      },
      { method: 'DELETE', url: '/api/v1/api-keys/1%27%20OR%201=1', token },
      { method: 'PUT', url: '/api/v1/orgs/../members/x', token, body: { roles: ['Reader'] } },
    ];
    for (const request of cases) {
      const response = await workflow.request(request);
      assert.ok(
        response.statusCode >= 400 && response.statusCode < 500,
        `${request.method} ${request.url} → ${response.statusCode} ${response.body}`,
      );
      const body = response.json() as { code: string; message: string };
      assert.match(body.code, /^U4\d\d$/);
      assert.ok(!/\bat .+\.(ts|js):\d+/.test(response.body), 'no stack trace');
    }
    const { rows } = await workflow.database.pool.query(`SELECT to_regclass('users') IS NOT NULL AS ok`);
    assert.deepEqual(rows, [{ ok: true }]);
  });

  test('every response carries a request id, echoing a sane X-Request-ID', async () => {
    const echoed = await workflow.request({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'trace-123' },
    });
    assert.equal(echoed.headers['x-request-id'], 'trace-123');
    const generated = await workflow.request({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });
});

describe('when the database is unreachable', () => {
  test('GET /health answers 503 U503 with database "unreachable" and API routes answer 503 U503, not 500', async () => {
    const database = await createMigratedDatabase('workflow');
    const workflow = await startTestWorkflow({ database });
    try {
      await workflow.createUser('down@example.com', 'down password 1');
      const token = await workflow.login('down@example.com', 'down password 1');
      const name = new URL(database.url).pathname.slice(1);
      const admin = new pg.Client({ connectionString: process.env.WEFT_TEST_ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
      const health = await workflow.request({ method: 'GET', url: '/health' });
      assert.equal(health.statusCode, 503);
      assert.deepEqual(health.json(), {
        code: 'U503',
        message: 'The database is unavailable',
        details: { request_id: health.headers['x-request-id'] },
        status: 'error',
        database: 'unreachable',
      });
      const me = await workflow.request({ method: 'GET', url: '/api/v1/me', token });
      assert.equal(me.statusCode, 503);
      assert.equal((me.json() as { code: string }).code, 'U503');
    } finally {
      await workflow.service.close();
      await database.pool.end().catch(() => undefined);
    }
  });
});

describe('router-level failures use the service error body', () => {
  test('a path segment longer than the router allows is a 400 U400, not Fastify’s own body', async () => {
    const workflow = await startTestWorkflow();
    try {
      const response = await workflow.request({
        method: 'DELETE',
        url: `/api/v1/api-keys/${'x'.repeat(600)}`,
      });
      assert.equal(response.statusCode, 400);
      assert.equal((response.json() as { code: string }).code, 'U400');
    } finally {
      await workflow.close();
    }
  });
});
