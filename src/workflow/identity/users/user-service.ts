import type { Pool } from '../../../platform/database/pool.js';
import { pgErrorCode, PgErrorCode } from '../../../platform/database/pool.js';
import { isPlatformAdmin } from '../auth/authorization.js';
import type { Identity } from '../auth/identity.js';
import { hashPassword } from '../auth/passwords.js';
import { WorkflowErrors } from '../../errors.js';
import { insertUser, type UserRecord } from './user-repository.js';

/** Input of user creation. */
export interface NewUser {
  email: string;
  password?: string | undefined;
  auth_provider?: 'internal' | 'external' | undefined;
}

/** Creates users (PlatformAdmin, or OrgAdmin of some organisation, who then grants roles in it). */
export class UserService {
  constructor(private readonly pool: Pool) {}

  /** Creates an internal user (password required) or an external one (no password). */
  async create(identity: Identity, input: NewUser): Promise<UserRecord> {
    const isOrgAdmin = identity.orgs.some((org) => org.roles.includes('OrgAdmin'));
    if (!isPlatformAdmin(identity) && !isOrgAdmin) {
      throw WorkflowErrors.forbidden(
        'Creating users needs the PlatformAdmin role or OrgAdmin in an organisation',
      );
    }
    const authProvider = input.auth_provider ?? 'internal';
    if (authProvider === 'internal' && input.password === undefined) {
      throw WorkflowErrors.validation('An internal user needs a password', {
        errors: [{ path: 'body.password', message: 'is required when auth_provider is internal' }],
      });
    }
    if (authProvider === 'external' && input.password !== undefined) {
      throw WorkflowErrors.validation('An external user cannot have a password', {
        errors: [{ path: 'body.password', message: 'must be absent when auth_provider is external' }],
      });
    }
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
    try {
      return await insertUser(this.pool, { email: input.email, passwordHash, authProvider });
    } catch (error) {
      if (pgErrorCode(error) === PgErrorCode.uniqueViolation) {
        throw WorkflowErrors.conflict('A user with this email already exists');
      }
      throw error;
    }
  }
}
