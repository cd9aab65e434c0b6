/** The scopes a credential grants, for `requiredScopes` (docs/records/authentication.md, Scopes). */
export type GrantedScopes = ReadonlySet<string>;

/** A credential that grants no scope. */
export const noScopes: GrantedScopes = new Set<string>();

/** A scope token (RFC 6749 section 3.3): printable ASCII without space, `"` or `\`. */
export const scopeTokenPattern = '^[\\x21\\x23-\\x5b\\x5d-\\x7e]{1,200}$';
const scopeToken = new RegExp(scopeTokenPattern);

/** Whether `text` is one scope token. */
export function isScopeToken(text: string): boolean {
  return scopeToken.test(text);
}

function tokensOf(claim: unknown): string[] {
  if (typeof claim === 'string') return claim.split(' ');
  if (Array.isArray(claim)) return claim.flatMap((item) => (typeof item === 'string' ? item.split(' ') : []));
  return [];
}

/**
 * The scopes of a verified JWT: the union of `scope` (RFC 8693/9068: a space-separated string; a
 * list is accepted too) and `scp` (a list, as Azure AD and Okta send it, or a space-separated string).
 * Anything that is not a scope token is ignored.
 */
export function scopesOfClaims(claims: Record<string, unknown>): GrantedScopes {
  const scopes = [...tokensOf(claims.scope), ...tokensOf(claims.scp)].filter(isScopeToken);
  return scopes.length === 0 ? noScopes : new Set(scopes);
}
