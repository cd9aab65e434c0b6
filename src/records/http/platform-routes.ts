import Type, { type Static } from 'typebox';
import type { Registry } from 'prom-client';
import { buildInfo } from '../../platform/build-info.js';
import { databaseAnswers, type Pool } from '../../platform/database/pool.js';
import { publicRoute, type HttpServer } from '../../platform/http/index.js';
import '../auth/scopes/scoped-operations.js';
import { AuthErrors } from '../auth/auth-errors.js';
import { RecordsErrors, recordsErrorCatalogue } from '../errors.js';
import { identityOf } from '../auth/request-identity.js';
import { buildOpenApi } from '../openapi/schema-openapi.js';
import { platformAdminRole } from '../role-bindings/routes.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';

/** The role that may read `/api/metrics` on the main port (as may `platform-admin`). */
export const metricsReaderRole = 'platform-metrics';

/** What the platform routes need. */
export interface PlatformRouteDependencies {
  pool: Pool;
  registry: SchemaRegistry;
  metrics: Registry;
  /** True once the schema watcher has synced. */
  isReady(): boolean;
  /** How long a probe waits for the database before answering 503. */
  healthTimeoutMs: number;
}

const Probe = Type.Object({
  status: Type.String(),
  database: Type.String(),
  schemas: Type.Optional(Type.String()),
});
// A failed probe: the service's error body plus the probe's own fields.
const FailedProbe = Type.Object({
  code: Type.String(),
  message: Type.String(),
  requestId: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
  ...Probe.properties,
});

/**
 * The public `/api/version`, `/api/healthz` and `/api/readyz` (200 only after the first schema load;
 * a database that does not answer within `healthTimeoutMs` is 503 with the error body);
 * behind a token: `/api/metrics` (roles `platform-metrics` or `platform-admin`; scrapers without a
 * token use the separate listener of `RECORDS_METRICS_PORT`), `/api/openapi.json` (any actor: it
 * describes what the schema listing lists; regenerated when the schemas change) and the schema
 * listing `GET /api/api` (the spec's `GET /api` under the base URL `/api`; `GET /api` is an alias).
 */
export function registerPlatformRoutes(app: HttpServer, deps: PlatformRouteDependencies): void {
  const { pool, registry, metrics } = deps;
  const databaseUp = () => databaseAnswers(pool, deps.healthTimeoutMs);
  const failed = (requestId: string, database: boolean) =>
    recordsErrorCatalogue.render(
      database ? RecordsErrors.notReady() : RecordsErrors.databaseUnavailable(),
      requestId,
    ) as Omit<Static<typeof FailedProbe>, keyof Static<typeof Probe>>;
  const probeSchema = { tags: ['platform'], response: { 200: Probe, 503: FailedProbe } };
  app.get(
    '/api/healthz',
    { ...publicRoute, schema: { ...probeSchema, summary: 'Load balancer probe' } },
    async (request, reply) =>
      (await databaseUp())
        ? { status: 'ok', database: 'ok' }
        : reply
            .status(503)
            .send({ ...failed(request.id, false), status: 'unavailable', database: 'unreachable' }),
  );
  app.get(
    '/api/readyz',
    { ...publicRoute, schema: { ...probeSchema, summary: 'Ready once the schemas are loaded' } },
    async (request, reply) => {
      const database = await databaseUp();
      const ready = deps.isReady();
      if (database && ready) return { status: 'ready', database: 'ok', schemas: 'synced' };
      return reply.status(503).send({
        ...failed(request.id, database),
        status: 'not_ready',
        database: database ? 'ok' : 'unreachable',
        schemas: ready ? 'synced' : 'loading',
      });
    },
  );
  app.get(
    '/api/version',
    {
      ...publicRoute,
      schema: {
        tags: ['platform'],
        summary: 'Build information',
        response: {
          200: Type.Object({
            client_version: Type.String(),
            server_version: Type.String(),
            build_date: Type.String(),
            git_commit: Type.String(),
          }),
        },
      },
    },
    () => buildInfo(),
  );
  app.get(
    '/api/metrics',
    { schema: { hide: true }, config: { recordsScope: 'metrics' } },
    async (request, reply) => {
      const roles = identityOf(request).roles;
      if (!roles.includes(metricsReaderRole) && !roles.includes(platformAdminRole))
        throw AuthErrors.forbidden('read the metrics', metricsReaderRole);
      return reply.type(metrics.contentType).send(await metrics.metrics());
    },
  );

  let cached: { version: number; document: string } | undefined;
  app.get(
    '/api/openapi.json',
    { schema: { hide: true }, config: { recordsScope: 'schemas' } },
    (_r, reply) => {
      if (cached?.version !== registry.version)
        cached = {
          version: registry.version,
          document: JSON.stringify(
            buildOpenApi(app.swagger() as unknown as Record<string, unknown>, registry.all()),
          ),
        };
      return reply.type('application/json').send(cached.document);
    },
  );

  const listingResponse = Type.Object({
    data: Type.Array(
      Type.Object({
        path: Type.String(),
        displayName: Type.String(),
        description: Type.String(),
        fields: Type.Integer(),
        hasTimeMachine: Type.Boolean(),
        searchTier: Type.Integer(),
      }),
    ),
    status: Type.String(),
    requestId: Type.String(),
  });
  const listing = (request: { id: string }) => {
    const entries = registry.all().map(({ definition }) => ({
      path: definition.path,
      displayName: definition.displayName,
      description: definition.description,
      fields: definition.fields.length,
      hasTimeMachine: definition.timeMachine,
      searchTier: definition.searchTier,
    }));
    return { data: entries, status: 'success', requestId: request.id };
  };
  // The spec's `GET /api` is relative to a base URL ending in /api; `GET /api` itself stays as an
  // alias for clients written against it.
  for (const [url, summary] of [
    ['/api/api', 'Schemas served by this service'],
    ['/api', 'Schemas served by this service (alias of /api/api)'],
  ] as const)
    app.get(
      url,
      {
        config: { recordsScope: 'schemas' },
        schema: {
          tags: ['platform'],
          summary,
          security: [{ bearer: [] }],
          response: { 200: listingResponse },
        },
      },
      listing,
    );
}
