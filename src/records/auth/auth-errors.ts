import { ServiceError } from '../../platform/http/service-error.js';

/** Errors of authentication strategies, role bindings and the auth audit log (records error body). */
export const AuthErrors = {
  revocationUnavailable: () =>
    new ServiceError(503, 'REVOCATION_UNAVAILABLE', 'The revocation store is unavailable; try again shortly'),
  revoked: () =>
    new ServiceError(401, 'AUTH_INVALID_TOKEN', 'The credentials of this actor have been revoked'),
  providerUnavailable: () =>
    new ServiceError(503, 'IDENTITY_PROVIDER_UNAVAILABLE', 'The identity provider cannot be reached'),
  loginFailed: (reason: string) =>
    new ServiceError(401, 'AUTH_INVALID_TOKEN', `The login could not be completed: ${reason}`),
  noOidcStrategy: (name?: string) =>
    new ServiceError(
      404,
      'NOT_FOUND',
      name === undefined ? 'No OIDC strategy is declared' : `No OIDC strategy ${name}`,
      name === undefined ? {} : { strategy: name },
    ),
  ambiguousOidcStrategy: (names: string[]) =>
    new ServiceError(400, 'VALIDATION_ERROR', 'Several OIDC strategies are declared: pass ?strategy=', {
      errors: [{ field: 'strategy', reason: `must be one of ${names.join(', ')}` }],
    }),
  forbidden: (operation: string, role: string) =>
    new ServiceError(403, 'RBAC_DENIED', `Only actors with the role ${role} may ${operation}`, {
      operation,
      role,
    }),
  bindingNotFound: (name: string) => new ServiceError(404, 'NOT_FOUND', `No role binding ${name}`, { name }),
} as const;
