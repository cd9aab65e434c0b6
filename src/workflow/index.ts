import { fileURLToPath } from 'node:url';
import type { Config } from '../platform/config/index.js';
import { systemClock, type Clock } from '../platform/clock.js';
import { migrate } from '../platform/database/migrate.js';
import { grantApplicationRole } from '../platform/database/role-membership.js';
import type { Pool } from '../platform/database/pool.js';
import { createHttpServer, serveConsole, type HttpServer } from '../platform/http/index.js';
import type { Logger } from '../platform/logging/logger.js';
import { createMetricsRegistry } from '../platform/metrics/registry.js';
import { registerInstanceGauges } from './instances/instance-gauges.js';
import type { RateLimitStore } from '../platform/rate-limit/limiter.js';
import { ApiKeyHasher } from './identity/api-keys/api-key-hasher.js';
import { ApiKeyService } from './identity/api-keys/api-key-service.js';
import { LastUsedRecorder } from './identity/api-keys/last-used-recorder.js';
import { registerApiKeyRoutes } from './identity/api-keys/routes.js';
import { installAuthentication } from './identity/auth/authentication-hook.js';
import { Authenticator } from './identity/auth/authenticator.js';
import type { HousekeepingResult } from './timers/housekeeping.js';
import { IdentityCache } from './identity/auth/identity-cache.js';
import { IdentityChangeListener } from './identity/auth/identity-change-listener.js';
import { JwtCodec } from './identity/auth/jwt.js';
import { LoginLimiter } from './identity/auth/login-limiter.js';
import { LoginService } from './identity/auth/login-service.js';
import { registerMeRoutes } from './identity/auth/me-routes.js';
import { createDecoyHash } from './identity/auth/passwords.js';
import { registerAuthRoutes } from './identity/auth/routes.js';
import { bootstrapWorkflow } from './identity/bootstrap.js';
import { createEngine } from './engine/engine-service.js';
import { registerEngineRoutes } from './engine/routes.js';
import { registerCamundaRest } from './camunda-rest/register.js';
import { registerDecisionRoutes } from './decisions/routes.js';
import { DecisionService } from './decisions/decision-service.js';
import { setFeelLimits } from '../lib/feel/index.js';
import { decisionWork } from './decisions/decision-work.js';
import { workflowErrorCatalogue } from './errors.js';
import { registerOperationsRoutes } from './operations/routes.js';
import { OrgService } from './identity/orgs/org-service.js';
import { registerOrgRoutes } from './identity/orgs/routes.js';
import { createScriptSandbox } from './scripts/sandbox.js';
import { pipelineElementName, pipelineExtension } from './scripts/bpmn-pipeline.js';
import { javascriptWork } from './scripts/javascript-work.js';
import { executionListenerWork } from './scripts/execution-listener-work.js';
import { taskListenerWork } from './scripts/task-listener-work.js';
import { pipelineWork } from './scripts/pipeline-work.js';
import { registerScriptRoutes } from './scripts/routes.js';
import { resolveJwtSigningKey } from './identity/signing-key.js';
import { registerSecretRoutes } from './secrets/routes.js';
import { findAllowlist } from './connectors/allowlist-repository.js';
import { AllowlistService } from './connectors/allowlist-service.js';
import { createConnectorExecutors } from './connectors/connector-executor.js';
import { ConnectorMetrics } from './connectors/connector-metrics.js';
import { httpConnectorElementName, httpConnectorExtension } from './connectors/http-connector-element.js';
import { registerConnectorRoutes } from './connectors/routes.js';
import { SecretService } from './secrets/secret-service.js';
import { resolveSecretsKeyring } from './secrets/secrets-keyring.js';
import { registerUserRoutes } from './identity/users/routes.js';
import { UserService } from './identity/users/user-service.js';

/** Folder of the workflow service's SQL migrations. */
export const workflowMigrationsDir = fileURLToPath(new URL('../../migrations/workflow', import.meta.url));

/** What the workflow service needs from its host process. */
export interface WorkflowServiceDependencies {
  config: Config;
  /** The runtime login's pool: every request and the engine run on it. */
  pool: Pool;
  /** The owner login's pool: history retention (history is append-only for `pool`). `pool` when omitted. */
  ownerPool?: Pool;
  logger: Logger;
  rateLimitStore: RateLimitStore;
  /** The connection string of `pool`, for the LISTEN connection that wakes long-polling workers. */
  databaseUrl: string;
  clock?: Clock;
  /** False: this service never becomes the timer leader (tests fire timers by hand). Default true. */
  timerLeader?: boolean;
}

/** A built workflow service: its HTTP app and how to stop its background work. */
export interface WorkflowService {
  app: HttpServer;
  /** Writes what background work holds in memory now (API-key last use), instead of at the next tick. */
  flushBackgroundWork(): Promise<void>;
  /** Fires the timers due now, as the leader does on its own; tests call it after moving the clock. */
  fireDueTimers(): Promise<{ claimed: number; fired: number; failed: number }>;
  /** Runs one chunk of pending batch items now (tests on a moved clock, whose executor is not started). */
  runBatches(): Promise<{ claimed: number; fired: number; failed: number }>;
  /** Runs the continuation jobs (asyncBefore/asyncAfter) due now, as the executor does on its own. */
  runContinuationJobs(): Promise<{ claimed: number; fired: number; failed: number }>;
  /** Runs the connector jobs due now, as the connector executors do on their own. */
  runConnectorJobs(): Promise<{ claimed: number; fired: number; failed: number }>;
  /** Delivers the due rows of the thrown-event outbox now (tests without the background loop). */
  deliverThrownEvents(): Promise<{ claimed: number; fired: number; failed: number }>;
  /**
   * Deletes history and finished batches past WORKFLOW_HISTORY_RETENTION_DAYS, and finished instances
   * past WORKFLOW_INSTANCE_RETENTION_DAYS, now, as the leader does hourly.
   */
  purgeHistory(): Promise<HousekeepingResult>;
  /** Closes the HTTP server (draining requests) and stops background work. The pool is the host's. */
  close(): Promise<void>;
}

/** Applies the workflow migrations, then runs the bootstrap of the spec. */
export async function prepareWorkflowDatabase(
  ownerPool: Pool,
  config: Config,
  logger: Logger,
  runtimeLogin?: string,
): Promise<void> {
  await migrate(ownerPool, 'workflow', workflowMigrationsDir, logger);
  if (runtimeLogin !== undefined)
    await grantApplicationRole(ownerPool, workflowAppRole, runtimeLogin, logger);
  await bootstrapWorkflow(ownerPool, config.workflow, logger);
}

/** The group role of the workflow runtime login (migration 0015). */
export const workflowAppRole = 'weft_workflow_app';

/** Builds the workflow service on a migrated database. Does not listen. */
export async function createWorkflowService(deps: WorkflowServiceDependencies): Promise<WorkflowService> {
  const { config, pool, rateLimitStore } = deps;
  const logger = deps.logger.child({ service: 'workflow' });
  const clock = deps.clock ?? systemClock;
  const metrics = createMetricsRegistry('workflow');

  const jwt = new JwtCodec(await resolveJwtSigningKey(config, logger), config.workflow.jwtTtlSeconds);
  const hasher = await ApiKeyHasher.load(pool);
  const lastUsed = new LastUsedRecorder(pool, clock, logger);
  const identities = new IdentityCache({ ttlMs: config.workflow.identityCacheMs, clock });
  const identityListener = new IdentityChangeListener(deps.databaseUrl, identities, logger);
  const authenticator = new Authenticator(pool, jwt, hasher, lastUsed, clock, identities);
  const limiter = new LoginLimiter(rateLimitStore, config.workflow.loginAttemptsPerMinute);
  const logins = new LoginService(pool, jwt, limiter, await createDecoyHash(), clock);
  const secrets = new SecretService(pool, await resolveSecretsKeyring(config, logger));
  // Workers start on the first script step, so a service that never runs one does not pay for them.
  const scripts = config.workflow.scripts;
  const sandbox = createScriptSandbox({
    poolSize: scripts.workers,
    stepTimeoutMs: scripts.stepTimeoutMs,
    limits: { rhai: scripts.rhai },
  });

  const app = await createHttpServer({
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    maxJsonDepth: config.maxJsonDepth,
    timeouts: config.http,
    errors: workflowErrorCatalogue,
    metrics,
    openapi: {
      title: 'weft workflow',
      version: '1',
      description: 'BPMN orchestration: identity, processes, decisions',
    },
  });
  await serveConsole(app, 'workflow');
  installAuthentication(app, authenticator);
  registerOperationsRoutes(app, pool, metrics, config.healthTimeoutMs);
  registerInstanceGauges(metrics, pool, clock);
  registerAuthRoutes(app, logins);
  registerMeRoutes(app);
  registerApiKeyRoutes(app, new ApiKeyService(pool, hasher, identities));
  registerUserRoutes(app, new UserService(pool));
  registerOrgRoutes(app, new OrgService(pool, identities));
  const feel = config.workflow.feel;
  // FEEL runs inside pure functions all over the engine; its bounds are set once per process.
  setFeelLimits({ timeoutMs: feel.timeoutMs, maxListLength: feel.maxListLength });
  const decisions = new DecisionService(pool, {
    limits: {
      maxElements: feel.dmnMaxElements,
      maxExpressions: feel.dmnMaxExpressions,
      maxExpressionLength: feel.maxExpressionLength,
    },
  });
  registerDecisionRoutes(app, decisions);
  registerScriptRoutes(app, sandbox);
  registerSecretRoutes(app, secrets);
  registerConnectorRoutes(app, new AllowlistService(pool));
  const engine = createEngine({
    ownerPool: deps.ownerPool ?? pool,
    pool,
    clock,
    metrics,
    logger,
    databaseUrl: deps.databaseUrl,
    config: config.workflow,
    immediate: [
      pipelineWork(sandbox, clock),
      javascriptWork(sandbox, clock),
      taskListenerWork(sandbox, clock),
      executionListenerWork(sandbox, clock),
      decisionWork(decisions),
    ],
    extensions: {
      [pipelineElementName]: pipelineExtension,
      [httpConnectorElementName]: httpConnectorExtension,
    },
    ...(deps.timerLeader === undefined ? {} : { timerLeader: deps.timerLeader }),
  });
  registerEngineRoutes(app, engine, {
    auth: config.workflow.externalTasksAuth,
    authenticator,
    longPolls: config.workflow.longPolls,
  });
  await registerCamundaRest(app, {
    pool,
    clock,
    engine,
    authenticator,
    logins,
    identities,
    longPolls: config.workflow.longPolls,
    decisions,
    bodyLimitBytes: config.bodyLimitBytes,
  });
  const connectors = createConnectorExecutors({
    pool,
    clock,
    driver: engine.driver,
    logger,
    concurrency: config.workflow.connectors.concurrency,
    maxResponseBytes: config.workflow.connectors.maxResponseBytes,
    resolveSecrets: (orgId, names) => secrets.resolve(orgId, names),
    allowlist: (orgId) => findAllowlist(pool, orgId),
    sandbox,
    metrics: new ConnectorMetrics(metrics),
  });
  await engine.start();
  await identityListener.start();
  connectors.start();
  await app.ready();

  return {
    app,
    flushBackgroundWork: () => lastUsed.flush(),
    fireDueTimers: () => engine.timers.runOnce(),
    runBatches: () => engine.batchRuns.runOnce(),
    runConnectorJobs: () => connectors.runOnce(),
    runContinuationJobs: () => engine.continuations.runOnce(),
    deliverThrownEvents: () => engine.outbox.runOnce(),
    purgeHistory: () => engine.housekeeping.runOnce(),
    close: async () => {
      await app.close();
      await connectors.stop();
      await engine.close();
      await lastUsed.stop();
      await identityListener.close();
      await sandbox.close();
    },
  };
}
