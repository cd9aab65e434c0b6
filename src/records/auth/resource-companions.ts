import type { PoolClient } from '../../platform/database/pool.js';
import { validateRoleBinding } from '../role-bindings/role-binding-definition.js';
import { upsertRoleBinding } from '../role-bindings/role-binding-repository.js';
import type { DocumentProblem } from '../schemas/validate-definition.js';
import { claimMappingProblems } from './claims/claim-mapping.js';
import { resolveClientSecret } from './oidc/client-secret.js';
import type { SecretEnvironment } from './secret-reference.js';
import { validateAuthStrategy } from './strategies/strategy-definition.js';

/** What applying an AuthStrategy or RoleBinding document checks first and writes alongside it. */
export interface ResourceCompanion {
  /** Problems that refuse the document; empty when it may be stored. */
  problems: DocumentProblem[];
  /** Runs in the transaction that stores the document. */
  write(client: PoolClient): Promise<void>;
}

const nothing = (): Promise<void> => Promise.resolve();

/**
 * The checks and side tables of the auth kinds: an AuthStrategy is validated (shape, transform
 * parameters, URLs, CIDRs, and with `secrets` that its secret references resolve); a RoleBinding is validated and stored in `records.role_bindings` in
 * the same transaction as its document. Undefined for other kinds.
 */
export function resourceCompanion(
  kind: string,
  name: string,
  spec: unknown,
  secrets?: SecretEnvironment,
): ResourceCompanion | undefined {
  if (kind === 'AuthStrategy') {
    const result = validateAuthStrategy(name, spec);
    if (!result.ok) return { problems: result.problems, write: nothing };
    const { jwt, oidc } = result.definition.spec;
    const problems = [
      ...(jwt ? claimMappingProblems(jwt.claimMapping, 'spec.jwt.claimMapping') : []),
      ...(oidc ? claimMappingProblems(oidc.claimMapping, 'spec.oidc.claimMapping') : []),
    ];
    if (oidc && secrets) {
      const secret = resolveClientSecret(oidc, secrets);
      if (!secret.ok) problems.push(secret.problem);
    }
    return { problems, write: nothing };
  }
  if (kind === 'RoleBinding') {
    const result = validateRoleBinding(name, spec);
    if (!result.ok) return { problems: result.problems, write: nothing };
    return { problems: [], write: (client) => upsertRoleBinding(client, result.binding) };
  }
  return undefined;
}
