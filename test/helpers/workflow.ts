import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { Clock } from '../../src/platform/clock.js';
import { loadConfig, type Config } from '../../src/platform/config/index.js';
import { createRateLimitStore } from '../../src/platform/rate-limit/limiter.js';
import { hashPassword } from '../../src/workflow/identity/auth/passwords.js';
import { createWorkflowService, type WorkflowService } from '../../src/workflow/index.js';
import { insertUser } from '../../src/workflow/identity/users/user-repository.js';
import { createPool } from '../../src/platform/database/pool.js';
import { createMigratedDatabase, type TestDatabase } from './database.js';
import { captureLogs, type CapturedLogs } from './log-capture.js';
import { asRuntimeLogin } from './runtime-login.js';

/** The JWT key of test services. */
export const testSigningKey = 'test-signing-key-0123456789abcdef0123456789';

/** A workflow service on its own migrated database, with captured logs. */
export interface TestWorkflow {
  service: WorkflowService;
  database: TestDatabase;
  config: Config;
  logs: CapturedLogs;
  /** Sends a request through app.inject with an optional bearer token and JSON body. */
  request(options: {
    method: string;
    url: string;
    token?: string;
    body?: unknown;
    headers?: Record<string, string>;
  }): Promise<LightMyRequestResponse>;
  /** Creates a user directly in the database (password hashed as the service does). */
  createUser(
    email: string,
    password: string | null,
    options?: { platformAdmin?: boolean; external?: boolean },
  ): Promise<string>;
  /** Logs in and returns the access token; fails the test on a non-200. */
  login(email: string, password: string): Promise<string>;
  close(): Promise<void>;
}

/** Starts a workflow service for a test file. `env` adds or overrides configuration variables. */
export async function startTestWorkflow(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    database?: TestDatabase;
    /** Take part in the timer leadership; by default only a service on the real clock does. */
    timerLeader?: boolean;
    /** Rewrites the runtime login's URL (pool and LISTEN connections), e.g. through a TCP proxy. */
    runtimeUrl?: (url: string) => string;
  } = {},
): Promise<TestWorkflow> {
  const database = options.database ?? (await createMigratedDatabase('workflow'));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-test-data-'));
  const config = loadConfig({
    WEFT_DATA_DIR: dataDir,
    WORKFLOW_JWT_SIGNING_KEY: testSigningKey,
    WORKFLOW_LOGIN_ATTEMPTS_PER_MINUTE: '1000',
    ...options.env,
  });
  const logs = captureLogs('info');
  const rateLimitStore = createRateLimitStore(config.redisUrl, logs.logger, config.redisCommandTimeoutMs);
  // Requests and the engine run as a login that owns nothing (as in production); the owner
  // keeps history retention.
  const directRuntimeUrl = asRuntimeLogin(database.url, 'workflow');
  const runtimeUrl = options.runtimeUrl ? options.runtimeUrl(directRuntimeUrl) : directRuntimeUrl;
  const pool = createPool(runtimeUrl, {
    max: 10,
    applicationName: 'weft-test-runtime',
    timeouts: config.databaseTimeouts,
  });
  const service = await createWorkflowService({
    config,
    pool,
    ownerPool: database.pool,
    logger: logs.logger,
    rateLimitStore,
    databaseUrl: runtimeUrl,
    ...(options.clock ? { clock: options.clock } : {}),
    // A test that moves a clock fires timers by hand: a background leader would race with it.
    timerLeader: options.timerLeader ?? options.clock === undefined,
  });
  const request: TestWorkflow['request'] = ({ method, url, token, body, headers }) =>
    service.app.inject({
      method: method as 'GET',
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  return {
    service,
    database,
    config,
    logs,
    request,
    createUser: async (email, password, userOptions = {}) => {
      const user = await insertUser(database.pool, {
        email,
        passwordHash: password === null ? null : await hashPassword(password),
        authProvider: userOptions.external ? 'external' : 'internal',
        globalRoles: userOptions.platformAdmin ? ['PlatformAdmin'] : [],
      });
      return user.id;
    },
    login: async (email, password) => {
      const response = await request({
        method: 'POST',
        url: '/api/v1/auth/login',
        body: { email, password },
      });
      if (response.statusCode !== 200)
        throw new Error(`login failed: ${response.statusCode} ${response.body}`);
      return (response.json() as { access_token: string }).access_token;
    },
    close: async () => {
      await service.close();
      await pool.end();
      await rateLimitStore.close();
      if (!options.database) await database.drop();
    },
  };
}
