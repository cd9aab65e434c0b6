import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { isServiceError } from '../../platform/http/service-error.js';
import { looksLikeApiKey } from '../identity/auth/api-key-format.js';
import type { Authenticator } from '../identity/auth/authenticator.js';
import type { Identity } from '../identity/auth/identity.js';
import type { IdentityCache } from '../identity/auth/identity-cache.js';
import type { LoginService } from '../identity/auth/login-service.js';
import { CamundaErrors } from './camunda-errors.js';

/**
 * Authenticates `/engine-rest` requests: `Authorization: Bearer` with a weft JWT or `ck_` API key
 * (weft's own authenticator), or HTTP Basic with an email and password, or any user name and a
 * `ck_` API key as the password.
 *
 * A password is checked with argon2, as a login is (tens of milliseconds), and a Camunda client
 * sends it with every request. So a verified (email, password) pair is remembered in the identity
 * cache under an HMAC of both, keyed by a secret of this process: the cache is bounded, its
 * entries expire, and it is emptied on every change to users, memberships or keys (a password
 * change included), and is not used while that change notification is down. A wrong password is
 * never remembered: every attempt with one is checked, and counted by the login limiter.
 */
export class CamundaAuthenticator {
  private readonly credentialKey = randomBytes(32);

  constructor(
    private readonly authenticator: Authenticator,
    private readonly logins: LoginService,
    private readonly cache: IdentityCache,
  ) {}

  /** The caller's identity; throws a 401 AuthenticationException when it has none. */
  async authenticate(request: FastifyRequest): Promise<Identity> {
    const header = request.headers.authorization;
    if (header === undefined) throw CamundaErrors.unauthenticated();
    const identity = /^basic /i.test(header)
      ? await this.viaBasic(header.slice(6).trim(), request.ip)
      : await this.authenticator.authenticate(header);
    if (identity === null) throw CamundaErrors.unauthenticated('The credentials are not valid');
    return identity;
  }

  private async viaBasic(encoded: string, clientAddress: string): Promise<Identity | null> {
    if (!/^[A-Za-z0-9+/]{1,4096}={0,2}$/.test(encoded)) return null;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    if (looksLikeApiKey(password)) return this.authenticator.authenticate(`Bearer ${password}`);
    if (user.length === 0 || password.length === 0 || user.length > 320 || password.length > 1024)
      return null;
    const userId = await this.cache.read(`basic:${this.credentialDigest(user, password)}`, async () => {
      try {
        return await this.logins.verifyCredentials(user, password, clientAddress);
      } catch (error) {
        if (isServiceError(error) && error.statusCode === 401) return null;
        throw error;
      }
    });
    return userId === null ? null : this.authenticator.identityOfUser(userId);
  }

  private credentialDigest(user: string, password: string): string {
    return createHmac('sha256', this.credentialKey)
      .update(user)
      .update('\0')
      .update(password)
      .digest('base64url');
  }
}
