import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import * as client from 'openid-client';
import type { Clock } from '../../../platform/clock.js';
import type { Pool } from '../../../platform/database/pool.js';
import { publicRoute, type HttpServer } from '../../../platform/http/index.js';
import { AuthErrors } from '../auth-errors.js';
import type { OidcStrategy } from './oidc-strategy.js';
import { createSession, revokeSession, storeLogin, takeLogin } from './oidc-sessions.js';
import { cookieValue, loginCookieName, sessionCookieName, setCookie } from './session-cookie.js';

/** What the login routes need. */
export interface OidcRouteDependencies {
  pool: Pool;
  clock: Clock;
  /** The declared OIDC strategies, by name (changes when resources are applied). */
  strategies(): ReadonlyMap<string, OidcStrategy>;
}

/**
 * `next` if it is a path on this service (`/…`, not `//host` nor `/\host`, no scheme, no control
 * characters), else `/`: the login never redirects anywhere else (no open redirect).
 */
export function safeNextPath(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2048 || !next.startsWith('/')) return '/';
  if (next.startsWith('//') || [...next].some((character) => isControlOrBackslash(character))) return '/';
  const base = 'http://weft.invalid';
  const resolved = new URL(next, base);
  if (resolved.origin !== base) return '/';
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

function isControlOrBackslash(character: string): boolean {
  const code = character.charCodeAt(0);
  return code < 0x20 || code === 0x7f || character === '\\';
}

const LoginQuery = Type.Object({
  next: Type.Optional(Type.String({ maxLength: 2048 })),
  strategy: Type.Optional(Type.String({ maxLength: 253 })),
});
const CallbackParameters = Type.Object(
  {
    state: Type.Optional(Type.String({ maxLength: 512 })),
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
    session_state: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: true },
);

/**
 * The OIDC browser flow: `GET /api/auth/login?next=&strategy=` redirects to the provider with PKCE
 * (S256), state and nonce; `GET|POST /api/auth/callback` exchanges the code, creates a server-side
 * session, sets the HttpOnly SameSite=Lax `weft_session` cookie and redirects to `next`;
 * `POST /api/auth/logout` revokes the session, clears the cookie and answers 204.
 */
export function registerOidcRoutes(app: HttpServer, deps: OidcRouteDependencies): void {
  const { pool, clock } = deps;
  const choose = (name: string | undefined): OidcStrategy => {
    const strategies = deps.strategies();
    if (name !== undefined) {
      const named = strategies.get(name);
      if (!named) throw AuthErrors.noOidcStrategy(name);
      return named;
    }
    const all = [...strategies.values()];
    if (all.length === 0) throw AuthErrors.noOidcStrategy();
    if (all.length > 1) throw AuthErrors.ambiguousOidcStrategy(all.map((strategy) => strategy.name));
    return all[0] as OidcStrategy;
  };

  app.get(
    '/api/auth/login',
    {
      ...publicRoute,
      schema: {
        tags: ['auth'],
        summary: 'Start an OIDC browser login',
        querystring: LoginQuery,
        response: { 302: Type.Null({ description: 'To the identity provider' }) },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const strategy = choose(query.strategy);
      const provider = await strategy.provider();
      if (!provider) throw AuthErrors.providerUnavailable();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const codeVerifier = client.randomPKCECodeVerifier();
      await storeLogin(
        pool,
        state,
        { strategy: strategy.name, codeVerifier, nonce, nextPath: safeNextPath(query.next) },
        clock.now(),
      );
      const location = client.buildAuthorizationUrl(provider, {
        redirect_uri: strategy.redirectUri,
        scope: strategy.scopes,
        response_type: 'code',
        state,
        nonce,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      });
      void reply.header(
        'set-cookie',
        setCookie(loginCookieName, state, {
          maxAgeSeconds: 600,
          secure: strategy.sessionSecure,
          path: '/api/auth',
        }),
      );
      return reply.redirect(location.href, 302);
    },
  );

  const callback = async (
    request: FastifyRequest,
    reply: FastifyReply,
    parameters: Record<string, unknown>,
  ) => {
    const state = typeof parameters.state === 'string' ? parameters.state : '';
    if (typeof parameters.error === 'string')
      throw AuthErrors.loginFailed(`the provider answered ${parameters.error}`);
    if (state === '' || cookieValue(request.headers, loginCookieName) !== state)
      throw AuthErrors.loginFailed('the state does not match this browser');
    const login = await takeLogin(pool, state, clock.now());
    if (login === null) throw AuthErrors.loginFailed('the login expired or was already used');
    const strategy = deps.strategies().get(login.strategy);
    if (!strategy) throw AuthErrors.noOidcStrategy(login.strategy);
    const provider = await strategy.provider();
    if (!provider) throw AuthErrors.providerUnavailable();
    const current = new URL(strategy.redirectUri);
    for (const [key, value] of Object.entries(parameters))
      if (typeof value === 'string') current.searchParams.set(key, value);
    let claims: Record<string, unknown> | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(provider, current, {
        pkceCodeVerifier: login.codeVerifier,
        expectedState: state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      request.log.warn(
        { strategy: strategy.name, err: (error as Error).message },
        'OIDC code exchange failed',
      );
      throw AuthErrors.loginFailed('the authorization code was refused');
    }
    const identity = claims && (await strategy.mapIdentity(claims));
    if (!identity) throw AuthErrors.loginFailed('the ID token has no actor claim');
    const session = await createSession(pool, {
      strategy: strategy.name,
      identity,
      now: clock.now(),
      ttlSeconds: strategy.sessionTtlSeconds,
    });
    void reply.header('set-cookie', [
      setCookie(sessionCookieName, session, {
        maxAgeSeconds: strategy.sessionTtlSeconds,
        secure: strategy.sessionSecure,
        path: '/',
      }),
      setCookie(loginCookieName, '', { maxAgeSeconds: 0, secure: strategy.sessionSecure, path: '/api/auth' }),
    ]);
    return reply.redirect(login.nextPath, 302);
  };
  const callbackSchema = {
    tags: ['auth'],
    summary: 'OIDC redirect target',
    response: { 302: Type.Null({ description: 'Session set; to `next`' }) },
  };
  app.get(
    '/api/auth/callback',
    { ...publicRoute, schema: { ...callbackSchema, querystring: CallbackParameters } },
    (request, reply) => callback(request, reply, request.query as Record<string, unknown>),
  );
  // `response_mode=form_post` providers post the parameters as a form.
  void app.register((scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 16_384 },
      (_r, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );
    scope.post(
      '/api/auth/callback',
      { ...publicRoute, schema: { ...callbackSchema, body: CallbackParameters } },
      (request, reply) => callback(request, reply, request.body as Record<string, unknown>),
    );
    return Promise.resolve();
  });

  app.post(
    '/api/auth/logout',
    {
      ...publicRoute,
      schema: {
        tags: ['auth'],
        summary: 'End the browser session',
        response: { 204: Type.Null({ description: 'Session ended' }) },
      },
    },
    async (request, reply) => {
      const cookie = cookieValue(request.headers, sessionCookieName);
      if (cookie !== undefined) await revokeSession(pool, cookie, clock.now());
      const secure = [...deps.strategies().values()].some((strategy) => strategy.sessionSecure);
      void reply.header(
        'set-cookie',
        setCookie(sessionCookieName, '', { maxAgeSeconds: 0, secure, path: '/' }),
      );
      return reply.status(204).send(null);
    },
  );
}
