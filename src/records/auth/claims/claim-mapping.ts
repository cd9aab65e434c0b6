import type { Clock } from '../../../platform/clock.js';
import type { RE2JS } from 're2js';
import { compileRe2, Re2PatternError } from '../../../lib/re2/re2-pattern.js';
import type { Identity } from '../../types.js';
import type { ClaimMappingSpec, ClaimSource } from './claim-mapping-schema.js';
import type { LookupTables } from './lookup-tables.js';

/** What a claim mapping needs besides the claims: the lookup tables and a clock. */
export interface ClaimMappingContext {
  lookups: LookupTables;
  clock: Clock;
}

/** Claims mapped to an identity; null when the `actorId` claim is missing or empty. */
export type MappedIdentity = Identity | null;

/** Problems of a claim mapping's transform parameters, at `path`. */
export function claimMappingProblems(
  mapping: ClaimMappingSpec,
  path: string,
): { path: string; reason: string }[] {
  const problems: { path: string; reason: string }[] = [];
  const sources: [string, ClaimSource][] = [
    ...(mapping.roles ?? []).map((source, index): [string, ClaimSource] => [
      `${path}.roles.${index}`,
      source,
    ]),
    ...Object.entries(mapping.attributes ?? {}).map(([name, source]): [string, ClaimSource] => [
      `${path}.attributes.${name}`,
      source,
    ]),
  ];
  for (const [at, source] of sources) {
    const need = (key: keyof ClaimSource) => {
      if (source[key] === undefined)
        problems.push({ path: `${at}.${key}`, reason: `is required by ${source.transform}` });
    };
    switch (source.transform) {
      case 'prefix_strip':
        need('prefix');
        break;
      case 'split':
        need('separator');
        break;
      case 'lookup':
        need('table');
        need('keyColumn');
        need('valueColumn');
        break;
      case 'regex_extract':
        need('pattern');
        if (source.pattern !== undefined && compilePattern(source.pattern) === undefined)
          problems.push({ path: `${at}.pattern`, reason: 'is not a valid RE2 regular expression' });
        break;
      case 'static_append':
        need('value');
        break;
      default:
    }
  }
  return problems;
}

// Claim values come from tokens: RE2 matches them in linear time whatever the pattern.
function compilePattern(pattern: string): RE2JS | undefined {
  try {
    return compileRe2(pattern);
  } catch (error) {
    if (error instanceof Re2PatternError) return undefined;
    throw error;
  }
}

/** Reads a dotted path (`realm_access.roles`) out of the claims; a claim named with dots wins. */
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (path in claims) return claims[path];
  let value: unknown = claims;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The string values of a claim: a string is one value, a list its string-like items. */
function valuesOf(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim];
  if (typeof claim === 'number' || typeof claim === 'boolean') return [String(claim)];
  if (Array.isArray(claim))
    return claim.filter((item) => ['string', 'number', 'boolean'].includes(typeof item)).map(String);
  return [];
}

/** Applies one source's transform to the values read at its path. */
async function transformed(
  source: ClaimSource,
  values: string[],
  context: ClaimMappingContext,
): Promise<string[]> {
  switch (source.transform ?? 'identity') {
    case 'identity':
      return values;
    case 'prefix_strip': {
      const prefix = source.prefix ?? '';
      // Values without the prefix are kept as they are: the prefix is a namespace, not a filter.
      return values.map((value) => (value.startsWith(prefix) ? value.slice(prefix.length) : value));
    }
    case 'split':
      return values
        .flatMap((value) => value.split(source.separator ?? ','))
        .map((part) => part.trim())
        .filter(Boolean);
    case 'uppercase':
      return values.map((value) => value.toUpperCase());
    case 'lowercase':
      return values.map((value) => value.toLowerCase());
    case 'lookup':
      return context.lookups.lookup(
        {
          table: source.table ?? '',
          keyColumn: source.keyColumn ?? '',
          valueColumn: source.valueColumn ?? '',
        },
        values,
      );
    case 'regex_extract': {
      const pattern = compilePattern(source.pattern ?? '');
      if (pattern === undefined) return [];
      const group = source.group ?? 1;
      return values.flatMap((value) => {
        const match = pattern.exec(value) as (string[] & { groups?: Record<string, string> }) | null;
        if (match === null) return [];
        const extracted: string | undefined =
          typeof group === 'number' ? match[group] : match.groups?.[group];
        return extracted === undefined || extracted === '' ? [] : [extracted];
      });
    }
    case 'static_append': {
      const extra = source.value ?? [];
      return [...values, ...(Array.isArray(extra) ? extra : [extra])];
    }
  }
}

/** True when the mapping reads a database table (its results are then cached briefly, not forever). */
export function usesLookup(mapping: ClaimMappingSpec): boolean {
  return [...(mapping.roles ?? []), ...Object.values(mapping.attributes ?? {})].some(
    (source) => source.transform === 'lookup',
  );
}

/**
 * Maps verified claims to an Identity: `actorId` names the actor claim (a non-empty string or a
 * number), each roles source adds its transformed values (deduplicated, in order), and each
 * attribute becomes its transformed value: a single value for a scalar claim, a list otherwise.
 */
export async function mapClaims(
  mapping: ClaimMappingSpec,
  claims: Record<string, unknown>,
  context: ClaimMappingContext,
): Promise<MappedIdentity> {
  const actor = claimAt(claims, mapping.actorId);
  const actorId = typeof actor === 'number' ? String(actor) : actor;
  if (typeof actorId !== 'string' || actorId.trim() === '' || actorId.length > 512) return null;
  const roles = new Set<string>();
  for (const source of mapping.roles ?? []) {
    for (const role of await transformed(source, valuesOf(claimAt(claims, source.path)), context))
      if (role !== '') roles.add(role);
  }
  const attributes: Record<string, unknown> = {};
  for (const [name, source] of Object.entries(mapping.attributes ?? {})) {
    const claim = claimAt(claims, source.path);
    if (source.transform === undefined || source.transform === 'identity') {
      if (claim !== undefined) attributes[name] = claim;
      continue;
    }
    const values = await transformed(source, valuesOf(claim), context);
    const scalar =
      !Array.isArray(claim) && source.transform !== 'split' && source.transform !== 'static_append';
    if (scalar) {
      if (values[0] !== undefined) attributes[name] = values[0];
    } else attributes[name] = values;
  }
  return { actor_id: actorId, roles: [...roles], attributes };
}
