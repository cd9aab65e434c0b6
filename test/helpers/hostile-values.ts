import fc from 'fast-check';
import type { LooseSchema, RouteEntry } from './route-table.js';

/** Strings that broke weft once, or that PostgreSQL refuses: NUL, lone surrogates, odd dates and numbers. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udc00y',
    '&#0;',
    '1e308',
    '-1e308',
    '-1',
    '9223372036854775808',
    '18446744073709551616',
    '0000-01-01T00:00:00Z',
    '2024-02-30T00:00:00Z',
    '2024-01-01T00:00:00+16:00',
    '99999-01-01T00:00:00Z',
    'NaN',
    'Infinity',
    "'; SELECT pg_sleep(1); --",
    '%',
    '../..',
    '[',
    '{"a":',
    'true',
    '',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom('\u0000', '\ud800', '\udc00', 'a', 'é', '\u{1F600}', "'", '"', '\\', '%'),
    minLength: 1,
    maxLength: 8,
  }),
  fc.string({ unit: 'binary-ascii', minLength: 2500, maxLength: 4000 }),
);

/** Numbers past what PostgreSQL's integer types or JavaScript's safe integers hold. */
export const hostileNumber: fc.Arbitrary<number> = fc.constantFrom(
  1e308,
  -1e308,
  2 ** 63,
  2 ** 64,
  -(2 ** 63) - 4096,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 31,
  -1,
  0.12345678901234568,
  -0,
  5e-324,
);

/**
 * A JSON value nested `depth` levels deep. Kept as a marker and spelled out by `toJsonText`: the
 * client's own `JSON.stringify` overflows the stack near 5,000 levels.
 */
export class DeepJson {
  constructor(readonly depth: number) {}

  text(): string {
    const open = Array.from({ length: this.depth }, (_, i) => (i % 2 === 0 ? '[' : '{"k":'));
    const close = open.map((token) => (token === '[' ? ']' : '}')).reverse();
    return `${open.join('')}"leaf"${close.join('')}`;
  }
}

/** Arrays and objects nested from a little to far too deep. */
export const deepValue: fc.Arbitrary<unknown> = fc
  .integer({ min: 50, max: 6000 })
  .map((depth) => new DeepJson(depth));

/** JSON text of a generated value, with every DeepJson spelled out. */
export function toJsonText(value: unknown): string {
  const deep: DeepJson[] = [];
  const text =
    JSON.stringify(value, (_key, item: unknown) => {
      if (!(item instanceof DeepJson)) return item;
      deep.push(item);
      return `\u0001deep${deep.length - 1}\u0001`;
    }) ?? 'null';
  return text.replace(
    /"\\u0001deep(\d+)\\u0001"/g,
    (_, index: string) => deep[Number(index)]?.text() ?? 'null',
  );
}

/** Any hostile JSON value. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: deepValue },
  { weight: 1, arbitrary: fc.constantFrom(null, true, [], {}) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileString, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 3 }) },
);

/** Values that pass a schema where they can, so a request gets past validation to the code behind it. */
export interface Plausible {
  /** A value for a parameter or property of this name, when one is known (ids of fixtures…). */
  byName(name: string): string | undefined;
}

function plausibleFor(schema: LooseSchema | undefined, name: string, known: Plausible): unknown {
  const named = known.byName(name);
  if (named !== undefined) return named;
  if (schema === undefined) return 'x';
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.anyOf?.[0]) return plausibleFor(schema.anyOf[0], name, known);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return plausibleObject(schema, known);
    default:
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      if (schema.format === 'date-time') return '2024-01-01T00:00:00Z';
      if (schema.format === 'email') return 'someone@example.com';
      return 'x';
  }
}

function plausibleObject(schema: LooseSchema, known: Plausible): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, property]) => [
      name,
      plausibleFor(property, name, known),
    ]),
  );
}

/** Either a plausible value for the field or a hostile one (hostile more often). */
function field(schema: LooseSchema | undefined, name: string, known: Plausible): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(plausibleFor(schema, name, known)) },
    { weight: 2, arbitrary: hostileValue },
  );
}

/** Percent-encodes text for a URL, spelling a lone surrogate as the bytes of its CESU-8 form. */
export function encodeForUrl(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text.replace(/[\s\S]/gu, (character) => {
    try {
      return encodeURIComponent(character);
    } catch {
      const code = character.charCodeAt(0);
      return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    }
  });
}

/** What a generated request carries. */
export interface HostileRequest {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/** Generic query keys tried on routes whose OpenAPI operation declares none (records' hidden routes). */
const genericQuery = ['filter[name]', 'limit', 'offset', 'cursor', 'sort', 'q', 'at', 'from', 'to', 'before'];

/**
 * Requests for one route: each path parameter, query parameter and body property is either plausible
 * (so the request gets past validation) or hostile; the body is sometimes replaced as a whole.
 */
export function hostileRequest(route: RouteEntry, known: Plausible): fc.Arbitrary<HostileRequest> {
  const params = fc.record(
    Object.fromEntries(route.params.map((name) => [name, field({ type: 'string' }, name, known)])),
  );
  const declared = Object.entries(route.query);
  const query =
    declared.length > 0
      ? fc.record(Object.fromEntries(declared.map(([name, schema]) => [name, field(schema, name, known)])), {
          requiredKeys: [],
        })
      : fc.dictionary(fc.constantFrom(...genericQuery), hostileValue, { maxKeys: 3 });
  const bodyOfSchema =
    route.body?.properties !== undefined
      ? fc.record(
          Object.fromEntries(
            Object.entries(route.body.properties).map(([name, schema]) => [name, field(schema, name, known)]),
          ),
        )
      : fc.dictionary(hostileString, hostileValue, { maxKeys: 4 });
  const body =
    route.method === 'GET' || route.method === 'DELETE'
      ? fc.constant(undefined)
      : fc.oneof({ weight: 4, arbitrary: bodyOfSchema }, { weight: 1, arbitrary: hostileValue });
  return fc.record({ params, query, body });
}

/** The URL of a generated request for a route template. */
export function urlOf(route: RouteEntry, request: HostileRequest): string {
  const path = route.url
    .replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeForUrl(request.params[name]))
    .replace(/\*$/, 'x');
  const query = Object.entries(request.query)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeForUrl(value)}`)
    .join('&');
  return query === '' ? path : `${path}?${query}`;
}
