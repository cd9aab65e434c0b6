import type { AccessSection } from '../types.js';

/**
 * Layer 4, row filters per role. An actor sees a row when one of its roles allows it: a role with
 * no `rowFilter` entry sees every row, a role with entries sees the rows matching all of them. An
 * actor holding no role sees nothing once a schema has row filters. A schema without row filters
 * restricts no rows.
 */

/** Roles that have row filters, each with its conditions. */
export function filtersByRole(access: AccessSection): Map<string, string[]> {
  const byRole = new Map<string, string[]>();
  for (const rule of access.rowFilter)
    byRole.set(rule.role, [...(byRole.get(rule.role) ?? []), rule.condition]);
  return byRole;
}

function allOf(conditions: string[]): string {
  return conditions.map((condition) => `(${condition})`).join(' AND ');
}

/**
 * The SQL condition (over the row's columns and the `weft.*` session settings) that the actor's
 * statements add, or undefined when the actor's roles see every row.
 */
export function rowFilterSql(access: AccessSection, roles: readonly string[]): string | undefined {
  if (access.rowFilter.length === 0) return undefined;
  const byRole = filtersByRole(access);
  if (roles.some((role) => !byRole.has(role))) return undefined;
  const held = [...new Set(roles)].sort().map((role) => allOf(byRole.get(role) ?? []));
  if (held.length === 0) return 'false';
  return held.length === 1 ? `(${held[0]})` : `(${held.map((sql) => `(${sql})`).join(' OR ')})`;
}
