import type { HttpServer } from '../../src/platform/http/http-server.js';

/** A JSON Schema as far as the hostile-input generator reads it. */
export interface LooseSchema {
  type?: string | string[];
  format?: string;
  properties?: Record<string, LooseSchema>;
  required?: string[];
  minimum?: number;
  enum?: unknown[];
  items?: LooseSchema;
  anyOf?: LooseSchema[];
}

/** One route of a server, with what its OpenAPI operation declares (hidden routes declare nothing). */
export interface RouteEntry {
  method: string;
  /** The path template, `:name` for a parameter, `*` for the rest of the path. */
  url: string;
  params: string[];
  query: Record<string, LooseSchema>;
  headers: Record<string, LooseSchema>;
  body: LooseSchema | undefined;
}

interface Operation {
  parameters?: { in: string; name: string; schema?: LooseSchema }[];
  requestBody?: { content?: Record<string, { schema?: LooseSchema }> };
}

/**
 * Every route of a ready Fastify server: read from `printRoutes` (which also lists routes hidden
 * from the OpenAPI document), with each operation's parameters and body from `app.swagger()`.
 */
export function routeTable(app: HttpServer): RouteEntry[] {
  const document = app.swagger() as { paths?: Record<string, Record<string, Operation>> };
  const entries: RouteEntry[] = [];
  for (const { method, url } of printedRoutes(app.printRoutes({ commonPrefix: false }))) {
    if (method === 'HEAD' || method === 'OPTIONS') continue;
    // The console's files (one route per built asset) are not API: test/console covers them.
    if (url.startsWith('/console')) continue;
    const openapiPath = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = document.paths?.[openapiPath]?.[method.toLowerCase()];
    const parameters = operation?.parameters ?? [];
    const pick = (where: string) =>
      Object.fromEntries(
        parameters.filter((p) => p.in === where).map((p) => [p.name, p.schema ?? { type: 'string' }]),
      );
    entries.push({
      method,
      url,
      params: [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] ?? ''),
      query: pick('query'),
      headers: pick('header'),
      body: operation?.requestBody?.content?.['application/json']?.schema,
    });
  }
  return entries;
}

// find-my-way prints one tree line per route node: the path since the parent node, then the methods.
function printedRoutes(tree: string): { method: string; url: string }[] {
  const found: { method: string; url: string }[] = [];
  const ancestors: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\).*)?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    ancestors.length = depth;
    // A parametric node lists every name used at that place, `:id|:key`; the first will do.
    const segment = (match[2] ?? '').replace(/(:[A-Za-z0-9_]+)(?:\|:[A-Za-z0-9_]+)+/g, '$1');
    ancestors.push(segment === '(empty root node)' ? '' : segment);
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) {
      found.push({ method, url: ancestors.join('') });
    }
  }
  return found;
}
