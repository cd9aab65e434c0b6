import type { HttpServer } from '../../platform/http/http-server.js';
import type { AccessControl } from '../access/access-control.js';
import { identityOf } from '../auth/request-identity.js';
import '../auth/scopes/scoped-operations.js';
import { RecordsErrors } from '../errors.js';
import { successBody } from '../http/envelope.js';
import { schemaBase, schemaRequest } from '../http/schema-request.js';
import { parseLimit } from '../records/select-plan.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import { OrgSearchQuery, orgSearchProblems } from './schemas.js';
import { parseSearchBody } from './search-request.js';
import { presentOrgHit, requireFullTextSearch, type SearchService } from './search-service.js';

/** What the search routes need. */
export interface SearchRouteDependencies {
  registry: SchemaRegistry;
  access: AccessControl;
  search: SearchService;
}

const searchRoute = {
  schema: { hide: true },
  config: { recordsRateLimit: 'search' as const, recordsScope: 'search' as const },
};

/**
 * `POST /{path}/search` (search tier 3) and `GET /{org}/search?q=` (every tier 2 and 3 schema of
 * the org the caller may read), both on the search rate limit.
 */
export function registerSearchRoutes(app: HttpServer, deps: SearchRouteDependencies): void {
  const { registry, access, search } = deps;
  const { prepare } = schemaRequest(registry, access);

  // The body is the search DSL of the schema's fields: parsed against the schema, not a route schema.
  app.post(`${schemaBase}/search`, searchRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'search');
    requireFullTextSearch(schema);
    const query = parseSearchBody(schema, request.body);
    const page = await search.search(identityOf(request), schema, query);
    const stats = { total_hits: page.totalHits, took_ms: page.tookMs };
    return reply
      .type('application/json')
      .send(successBody(`[${page.hits.join(',')}]`, request.id, `,"search_stats":${JSON.stringify(stats)}`));
  });

  app.get(
    '/api/:org/search',
    {
      ...searchRoute,
      schema: { ...searchRoute.schema, querystring: OrgSearchQuery },
      schemaErrorFormatter: orgSearchProblems,
    },
    async (request, reply) => {
      const { org } = request.params as { org: string };
      const { q } = request.query;
      if (typeof q !== 'string' || q.trim() === '' || q.length > 500)
        throw RecordsErrors.validation('Invalid q', [
          { field: 'q', reason: 'must be a non-empty search text' },
        ]);
      const limit = parseLimit(request.query.limit);
      const hits = await search.searchOrg(identityOf(request), org, q, limit);
      return reply
        .type('application/json')
        .send(successBody(JSON.stringify(hits.map(presentOrgHit)), request.id));
    },
  );
}
