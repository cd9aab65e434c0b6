import type { AuthOutcome } from './auth-audit-log.js';

const deniedByCode: Record<string, AuthOutcome> = {
  RBAC_DENIED: 'denied_rbac',
  CROSS_SCHEMA_ACCESS_DENIED: 'denied_rbac',
  ABAC_DENIED: 'denied_cel_abac',
  FIELD_WRITE_DENIED: 'denied_field',
  RLS_POLICY_DENIED: 'denied_rls',
  RATE_LIMITED: 'rate_limited',
  AUTH_INSUFFICIENT_SCOPES: 'denied_scopes',
};

/**
 * The audit outcome of an authenticated request from the error code of its response: the access
 * layers' denials by code; anything else (a success, a 404, a validation error) is `success` —
 * the caller was authenticated and authorized, whatever the operation then found.
 */
export function outcomeOfErrorCode(code: string | undefined): AuthOutcome {
  return code === undefined ? 'success' : (deniedByCode[code] ?? 'success');
}
