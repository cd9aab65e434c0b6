import Type from 'typebox';
import { scopedOperations, type ScopedOperation } from './scoped-operations.js';
import { scopeTokenPattern, type GrantedScopes } from './token-scopes.js';

const scopeList = Type.Array(Type.String({ pattern: scopeTokenPattern }), { maxItems: 50 });

/**
 * `spec.requiredScopes` of a `jwt` or `api_key` AuthStrategy: operation (see scopedOperations) or
 * `'*'` (every operation not listed) to the scopes a credential of that strategy must all hold.
 */
export const requiredScopesSchema = Type.Object(
  Object.fromEntries(['*', ...scopedOperations].map((operation) => [operation, Type.Optional(scopeList)])),
  { additionalProperties: false },
);

/** A validated `requiredScopes` map. */
export type RequiredScopes = Partial<Record<ScopedOperation | '*', string[]>>;

/**
 * The scopes `required` lists for `operation` (its own entry, else `'*'`) that `granted` lacks; empty
 * when the operation may go ahead. An operation listed with `[]` needs no scope even under `'*'`.
 */
export function missingScopes(
  required: RequiredScopes | undefined,
  operation: ScopedOperation | undefined,
  granted: GrantedScopes,
): string[] {
  if (required === undefined) return [];
  const needed = (operation === undefined ? undefined : required[operation]) ?? required['*'] ?? [];
  return needed.filter((scope) => !granted.has(scope));
}
