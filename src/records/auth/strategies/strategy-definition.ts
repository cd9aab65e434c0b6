import Type, { type Static } from 'typebox';
import Value from 'typebox/value';
import type { DocumentProblem } from '../../schemas/validate-definition.js';
import { claimMappingSchema } from '../claims/claim-mapping-schema.js';
import { requiredScopesSchema } from '../scopes/required-scopes.js';
import { secretReferenceSchema } from '../secret-reference.js';

const text = Type.String({ minLength: 1, maxLength: 2048 });

const issuerSchema = Type.Object(
  {
    issuer: text,
    audience: Type.Optional(text),
    /** Overrides `jwt.jwksUrl` for this issuer. */
    jwksUrl: Type.Optional(text),
  },
  { additionalProperties: false },
);

const jwtSchema = Type.Object(
  {
    issuer: Type.Optional(text),
    audience: Type.Optional(text),
    issuers: Type.Optional(Type.Array(issuerSchema, { minItems: 1, maxItems: 20 })),
    jwksUrl: Type.Optional(text),
    claimMapping: claimMappingSchema,
  },
  { additionalProperties: false },
);

const oidcSchema = Type.Object(
  {
    clientId: text,
    /** A secret reference (`{env}` or `{file}`); a plain string still works but puts the secret in the document. */
    clientSecret: Type.Optional(Type.Union([text, secretReferenceSchema])),
    /** The same reference under the name some deployments use; not together with clientSecret. */
    clientSecretRef: Type.Optional(secretReferenceSchema),
    discoveryUrl: text,
    redirectUri: text,
    scopes: Type.Optional(Type.Array(Type.String({ pattern: '^[\\x21-\\x7e]+$' }), { maxItems: 50 })),
    claimMapping: claimMappingSchema,
    sessionTtl: Type.Optional(text),
    sessionSecure: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const apiKeySchema = Type.Object(
  {
    headerName: Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' }),
    ipAllowlist: Type.Optional(Type.Array(text, { maxItems: 200 })),
  },
  { additionalProperties: false },
);

const specSchema = Type.Object(
  {
    type: Type.Enum(['jwt', 'oidc', 'api_key', 'composite']),
    displayName: Type.Optional(Type.String({ maxLength: 200 })),
    jwt: Type.Optional(jwtSchema),
    oidc: Type.Optional(oidcSchema),
    apiKey: Type.Optional(apiKeySchema),
    requiredScopes: Type.Optional(requiredScopesSchema),
    revocation: Type.Optional(
      Type.Object({ failOpen: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    ),
    strategies: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{0,252}$' }),
            weight: Type.Optional(Type.Number()),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 20 },
      ),
    ),
  },
  { additionalProperties: false },
);

/** `spec` of a `kind: AuthStrategy` document, as validated. */
export type AuthStrategySpec = Static<typeof specSchema>;

/** A validated AuthStrategy: its name and spec. */
export interface AuthStrategyDefinition {
  name: string;
  spec: AuthStrategySpec;
}

/** Outcome of validating an AuthStrategy document. */
export type StrategyResult =
  { ok: true; definition: AuthStrategyDefinition } | { ok: false; problems: DocumentProblem[] };

/**
 * Validates the `spec` of a `kind: AuthStrategy`: the shape, then that the section of its `type` is
 * present (`jwt`, `oidc`, `apiKey`, `strategies`), that a jwt strategy names an issuer and a key set,
 * that `requiredScopes` is on a jwt or api_key strategy, and that every CIDR and URL parses.
 */
export function validateAuthStrategy(name: string, spec: unknown): StrategyResult {
  if (!Value.Check(specSchema, spec)) {
    const problems = [...Value.Errors(specSchema, spec)]
      .slice(0, 20)
      .map((error) => ({ path: `spec${error.instancePath.replaceAll('/', '.')}`, reason: error.message }));
    return { ok: false, problems };
  }
  const problems: DocumentProblem[] = [];
  const problem = (path: string, reason: string) => problems.push({ path, reason });
  const section = { jwt: 'jwt', oidc: 'oidc', api_key: 'apiKey', composite: 'strategies' } as const;
  const key = section[spec.type];
  if (spec[key] === undefined) problem(`spec.${key}`, `is required for type ${spec.type}`);
  if (spec.jwt) {
    const issuers = spec.jwt.issuers ?? (spec.jwt.issuer ? [{ issuer: spec.jwt.issuer }] : []);
    if (issuers.length === 0) problem('spec.jwt', 'needs issuer or issuers');
    for (const [index, issuer] of issuers.entries()) {
      const url = issuer.jwksUrl ?? spec.jwt.jwksUrl;
      if (url === undefined) problem(`spec.jwt.issuers.${index}`, 'needs a jwksUrl');
      else if (!isHttpUrl(url)) problem(`spec.jwt.issuers.${index}.jwksUrl`, 'must be an http(s) URL');
    }
  }
  if (spec.oidc) {
    if (spec.oidc.clientSecret !== undefined && spec.oidc.clientSecretRef !== undefined)
      problem('spec.oidc.clientSecretRef', 'must not be given together with clientSecret');
    if (!isHttpUrl(spec.oidc.discoveryUrl)) problem('spec.oidc.discoveryUrl', 'must be an http(s) URL');
    if (!isHttpUrl(spec.oidc.redirectUri)) problem('spec.oidc.redirectUri', 'must be an http(s) URL');
  }
  for (const [index, cidr] of (spec.apiKey?.ipAllowlist ?? []).entries())
    if (!isCidr(cidr)) problem(`spec.apiKey.ipAllowlist.${index}`, 'must be a CIDR range');
  // A browser session holds no token scopes, and a composite's members each declare their own.
  if (spec.requiredScopes !== undefined && (spec.type === 'oidc' || spec.type === 'composite'))
    problem('spec.requiredScopes', `applies to jwt and api_key strategies only, not ${spec.type}`);
  if (spec.strategies?.some((member) => member.name === name))
    problem('spec.strategies', 'must not contain the composite itself');
  return problems.length > 0 ? { ok: false, problems } : { ok: true, definition: { name, spec } };
}

function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}

/** True for `a.b.c.d/n` and IPv6 `x::y/n` (a bare address counts as a single-host range). */
export function isCidr(value: string): boolean {
  return parseCidr(value) !== undefined;
}

/** Splits a CIDR into address, prefix and family; undefined when it does not parse. */
export function parseCidr(
  value: string,
): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText] = value.trim().split('/');
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
  if (family === undefined) return undefined;
  const max = family === 'ipv4' ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { address, prefix, family };
}

import { isIPv4, isIPv6 } from 'node:net';
