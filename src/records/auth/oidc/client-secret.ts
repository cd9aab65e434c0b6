import type { DocumentProblem } from '../../schemas/validate-definition.js';
import { resolveSecretReference, type SecretEnvironment } from '../secret-reference.js';
import type { AuthStrategySpec } from '../strategies/strategy-definition.js';

/**
 * The client secret of an OIDC strategy: resolved from `clientSecret: {env}|{file}` (or
 * `clientSecretRef`), taken as written when it is a plain string (discouraged: the secret is then
 * stored in the document), undefined for a public client (PKCE only).
 */
export function resolveClientSecret(
  oidc: NonNullable<AuthStrategySpec['oidc']>,
  environment: SecretEnvironment,
): { ok: true; value: string | undefined } | { ok: false; problem: DocumentProblem } {
  if (oidc.clientSecretRef !== undefined)
    return resolveSecretReference(oidc.clientSecretRef, environment, 'spec.oidc.clientSecretRef');
  if (oidc.clientSecret === undefined || typeof oidc.clientSecret === 'string')
    return { ok: true, value: oidc.clientSecret };
  return resolveSecretReference(oidc.clientSecret, environment, 'spec.oidc.clientSecret');
}
