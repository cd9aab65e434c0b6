/** A schema path segment (org, app, domain, object): lowercase words joined by single hyphens. */
export const segmentPattern = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
/** A version segment: `v1`, `v2`, … */
export const versionPattern = /^v[1-9][0-9]{0,3}$/;
/** A field name: a lowercase SQL-safe identifier. */
export const fieldNamePattern = /^[a-z][a-z0-9_]{0,62}$/;
/** A record id in a URL: a UUID. */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const maxIdentifierLength = 63;

/** Postgres schema holding an org's tables. */
export function pgSchemaName(org: string): string {
  return `rec_${org.replace(/-/g, '_')}`;
}

/** Table of one schema version. Segments cannot contain `__`, so distinct paths never collide. */
export function pgTableName(app: string, domain: string, object: string, version: string): string {
  return [app, domain, object, version].map((part) => part.replace(/-/g, '_')).join('__');
}

/** Whether a generated name fits Postgres' identifier limit. */
export function fitsIdentifier(name: string): boolean {
  return name.length <= maxIdentifierLength;
}

/**
 * Quotes an identifier. Every identifier we generate also matches a strict pattern first, so this
 * is a second wall, not the only one.
 */
export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Refusing unsafe identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** A SQL string literal. */
export function quoteLiteral(value: string): string {
  if (value.includes('\u0000')) throw new Error('NUL in a literal');
  return `'${value.replace(/'/g, "''")}'`;
}
