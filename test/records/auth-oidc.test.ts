import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CookieJar } from 'tough-cookie';
import { safeNextPath } from '../../src/records/auth/oidc/routes.js';
import { parseSessionTtl } from '../../src/records/auth/oidc/oidc-strategy.js';
import { startTestProvider, type TestProvider } from './support/oidc-provider.js';
import { writeResources } from './support/auth-fixtures.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

/** A browser: a real cookie jar and manual redirects, so every hop and cookie is visible. */
class Browser {
  readonly jar = new CookieJar();
  readonly hops: { url: string; status: number; setCookie: string[] }[] = [];

  async request(url: string, init: { method?: string } = {}): Promise<Response> {
    const cookie = await this.jar.getCookieString(url);
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: cookie ? { cookie } : {},
    });
    const setCookie = response.headers.getSetCookie();
    for (const value of setCookie) await this.jar.setCookie(value, url);
    this.hops.push({ url, status: response.status, setCookie });
    return response;
  }

  /** Follows redirects from `url` until a non-redirect answer (at most 15 hops). */
  async navigate(url: string): Promise<{ response: Response; url: string }> {
    let current = url;
    for (let hop = 0; hop < 15; hop += 1) {
      const response = await this.request(current);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null)
        return { response, url: current };
      current = new URL(location, current).href;
    }
    throw new Error('too many redirects');
  }
}

describe('OIDC browser flow against a real OpenID Provider', () => {
  let app: RecordsTestApp;
  let provider: TestProvider;
  let base: string;

  before(async () => {
    app = await startRecordsApp();
    await app.service.app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.service.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    provider = await startTestProvider(`${base}/api/auth/callback`, 'olivia');
    await writeResources(app.resourcesDir, {
      'oidc.yaml': `
apiVersion: weft.dev/v1
kind: AuthStrategy
metadata: { name: corp-sso }
spec:
  type: oidc
  displayName: Corporate SSO
  oidc:
    clientId: weft
    clientSecret: weft-test-client-secret
    discoveryUrl: ${provider.issuer}/.well-known/openid-configuration
    redirectUri: ${base}/api/auth/callback
    scopes: [openid, email, profile]
    sessionTtl: 2h
    sessionSecure: false
    claimMapping:
      actorId: sub
      roles: [{ path: groups, transform: prefix_strip, prefix: ROLE_ }]
      attributes:
        email: { path: email, transform: lowercase }
`,
    });
    const report = await app.service.sync.syncFolder();
    assert.deepEqual(report?.rejected, []);
  });
  after(async () => {
    await app.close();
    await provider.close();
  });

  test('login with PKCE and state, callback sets an HttpOnly SameSite=Lax session cookie, next is honoured, logout revokes', async () => {
    const browser = new Browser();
    const start = await browser.request(
      `${base}/api/auth/login?next=${encodeURIComponent('/api/auth/me?x=1')}`,
    );
    assert.equal(start.status, 302);
    const authorize = new URL(start.headers.get('location') ?? '');
    assert.equal(authorize.origin, provider.issuer);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(authorize.searchParams.get('code_challenge'));
    assert.ok(authorize.searchParams.get('state'));
    assert.ok(authorize.searchParams.get('nonce'));
    assert.equal(authorize.searchParams.get('redirect_uri'), `${base}/api/auth/callback`);

    const { response, url } = await browser.navigate(authorize.href);
    assert.equal(url, `${base}/api/auth/me?x=1`, 'redirected to next after the callback');
    assert.equal(response.status, 200, await response.clone().text());
    const identity = (await response.json()) as {
      data: { actor_id: string; roles: string[]; attributes: { email: string }; strategy: string };
    };
    assert.deepEqual(identity.data.roles, ['buyer', 'viewer']);
    assert.equal(identity.data.actor_id, 'olivia');
    assert.equal(identity.data.attributes.email, 'olivia@example.test');
    assert.equal(identity.data.strategy, 'corp-sso');

    const callback = browser.hops.find((hop) => hop.url.startsWith(`${base}/api/auth/callback`));
    const session = callback?.setCookie.find((value) => value.startsWith('weft_session='));
    assert.ok(session, 'the callback sets the session cookie');
    assert.match(session, /HttpOnly/);
    assert.match(session, /SameSite=Lax/);
    assert.match(session, /Max-Age=7200/);
    assert.doesNotMatch(session, /Secure/, 'sessionSecure: false');

    const records = await browser.request(`${base}/api/acme/procurement/purchasing/purchase-orders/v1`);
    assert.equal(records.status, 200, 'the session cookie authenticates record requests');

    const logout = await browser.request(`${base}/api/auth/logout`, { method: 'POST' });
    assert.equal(logout.status, 204);
    const { rows } = await app.database.pool.query<{ revoked_at: Date | null }>(
      `SELECT revoked_at FROM records.oidc_sessions WHERE actor_id = 'olivia'`,
    );
    assert.ok(rows[0]?.revoked_at, 'the session is revoked server-side');
    assert.equal((await browser.request(`${base}/api/auth/me`)).status, 401, 'the cookie is gone');
  });

  test('a revoked session cookie replayed is refused', async () => {
    const browser = new Browser();
    await browser.navigate(`${base}/api/auth/login?next=/api/auth/me`);
    const cookie = await browser.jar.getCookieString(`${base}/api/auth/me`);
    assert.match(cookie, /weft_session=/);
    await browser.request(`${base}/api/auth/logout`, { method: 'POST' });
    const replay = await fetch(`${base}/api/auth/me`, { headers: { cookie } });
    assert.equal(replay.status, 401);
  });

  test('no open redirect: an absolute or protocol-relative next lands on /', async () => {
    const browser = new Browser();
    await browser.navigate(`${base}/api/auth/login?next=${encodeURIComponent('https://evil.test/steal')}`);
    const callback = browser.hops.find((hop) => hop.url.startsWith(`${base}/api/auth/callback`));
    assert.ok(callback);
    const last = browser.hops[browser.hops.indexOf(callback) + 1];
    assert.equal(last?.url, `${base}/`);
    for (const next of [
      '//evil.test',
      '/\\evil.test',
      'https://evil.test',
      'javascript:alert(1)',
      '/%0d%0aX:1',
      '',
    ])
      assert.equal(safeNextPath(next).startsWith('//'), false, next);
    assert.equal(safeNextPath('//evil.test'), '/');
    assert.equal(safeNextPath('/\\evil.test'), '/');
    assert.equal(safeNextPath('/records?a=1#b'), '/records?a=1#b');
  });

  test('a callback without the browser that started the login, or replayed, is 401', async () => {
    const browser = new Browser();
    const start = await browser.request(`${base}/api/auth/login`);
    const state = new URL(start.headers.get('location') ?? '').searchParams.get('state') ?? '';
    const stranger = await fetch(`${base}/api/auth/callback?state=${state}&code=abc`, { redirect: 'manual' });
    assert.equal(stranger.status, 401);
    assert.equal(((await stranger.json()) as { code: string }).code, 'AUTH_INVALID_TOKEN');
    const forged = await browser.request(`${base}/api/auth/callback?state=${state}&code=forged`);
    assert.equal(forged.status, 401, 'a forged code is refused by the provider');
    const replay = await browser.request(`${base}/api/auth/callback?state=${state}&code=forged`);
    assert.equal(replay.status, 401, 'the state is used once');
    const provider = await browser.request(`${base}/api/auth/callback?error=access_denied&state=${state}`);
    assert.equal(provider.status, 401);
  });

  test('unknown strategy is 404; hostile query input is 400, never 500', async () => {
    assert.equal((await fetch(`${base}/api/auth/login?strategy=nope`, { redirect: 'manual' })).status, 404);
    assert.equal(
      (await fetch(`${base}/api/auth/login?next=${'a'.repeat(5000)}`, { redirect: 'manual' })).status,
      400,
    );
    assert.equal(
      (await fetch(`${base}/api/auth/callback?state=${'s'.repeat(600)}`, { redirect: 'manual' })).status,
      400,
    );
  });

  test('GET /api/auth/strategies lists the OIDC strategies by name and display name only, without credentials', async () => {
    const response = await fetch(`${base}/api/auth/strategies`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const body = await response.text();
    assert.deepEqual(JSON.parse(body), { oidc: [{ name: 'corp-sso', displayName: 'Corporate SSO' }] });
    assert.doesNotMatch(body, /secret|weft-test|discovery|127\.0\.0\.1/, 'nothing of the provider or client');
  });

  test('sessionTtl accepts short and ISO 8601 durations', () => {
    assert.equal(parseSessionTtl('2h'), 7200);
    assert.equal(parseSessionTtl('PT8H'), 28_800);
    assert.equal(parseSessionTtl('P1DT30M'), 88_200);
    assert.equal(parseSessionTtl('soon'), undefined);
    assert.equal(parseSessionTtl('P'), undefined);
  });
});
