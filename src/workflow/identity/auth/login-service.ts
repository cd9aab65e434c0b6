import type { Clock } from '../../../platform/clock.js';
import type { Pool } from '../../../platform/database/pool.js';
import { WorkflowErrors } from '../../errors.js';
import { findLoginRecord, findLoginRecordById, updatePasswordHash } from '../users/user-repository.js';
import type { Identity } from './identity.js';
import type { JwtCodec } from './jwt.js';
import type { LoginLimiter } from './login-limiter.js';
import { hashPassword, verifyPassword } from './passwords.js';

/** A successful login's token, in the spec's shape. */
export interface LoginResult {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** Password login and password change for internal users. */
export class LoginService {
  constructor(
    private readonly pool: Pool,
    private readonly jwt: JwtCodec,
    private readonly limiter: LoginLimiter,
    private readonly decoyHash: string,
    private readonly clock: Clock,
  ) {}

  /**
   * Verifies credentials and issues a JWT. Unknown emails, external users and wrong passwords all
   * answer the same 401 after the same argon2 work, so the answer reveals nothing about accounts.
   */
  async login(email: string, password: string, clientAddress: string): Promise<LoginResult> {
    const userId = await this.verifyCredentials(email, password, clientAddress);
    const { token, expiresIn } = await this.jwt.issue(userId, this.clock.now());
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn };
  }

  /**
   * The user id of an internal user's email and password, under the login limits and with the same
   * constant work as a login; 401 otherwise. HTTP Basic authentication checks passwords so too.
   */
  async verifyCredentials(email: string, password: string, clientAddress: string): Promise<string> {
    await this.limiter.attempt(email, clientAddress);
    const user = await findLoginRecord(this.pool, email);
    const storedHash = user?.auth_provider === 'internal' && user.password_hash ? user.password_hash : null;
    const passwordMatches = await verifyPassword(storedHash ?? this.decoyHash, password);
    if (!user || storedHash === null || !passwordMatches) throw WorkflowErrors.unauthenticated();
    await this.limiter.succeeded(email, clientAddress);
    return user.id;
  }

  /**
   * Changes the caller's password after checking the current one. Outstanding JWTs stay valid (the
   * spec's rule); the attempt counts against the same limits as a login.
   */
  async changePassword(
    identity: Identity,
    currentPassword: string,
    newPassword: string,
    clientAddress: string,
  ): Promise<void> {
    if (identity.authProvider !== 'internal') {
      throw WorkflowErrors.forbidden('Users of an external identity provider change their password there');
    }
    await this.limiter.attempt(identity.email, clientAddress);
    const user = await findLoginRecordById(this.pool, identity.userId);
    if (!user?.password_hash || !(await verifyPassword(user.password_hash, currentPassword))) {
      throw WorkflowErrors.forbidden('The current password is not correct');
    }
    await this.limiter.succeeded(identity.email, clientAddress);
    await updatePasswordHash(this.pool, identity.userId, await hashPassword(newPassword));
  }
}
