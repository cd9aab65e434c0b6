import { Pool, type Dispatcher } from 'undici';
import { migrate } from '../../src/platform/database/migrate.js';
import { createPool } from '../../src/platform/database/pool.js';
import { hashPassword } from '../../src/workflow/identity/auth/passwords.js';
import { workflowMigrationsDir } from '../../src/workflow/index.js';
import { insertUser } from '../../src/workflow/identity/users/user-repository.js';

/** The benchmark administrator's login (a PlatformAdmin). */
export const benchAdmin = { email: 'bench@example.com', password: 'bench password' } as const;
const { email, password } = benchAdmin;

/** Migrates a benchmark's workflow database and adds the PlatformAdmin the benchmark logs in as. */
export async function prepareWorkflowBenchDatabase(url: string): Promise<void> {
  const pool = createPool(url, { max: 2, applicationName: 'bench-setup' });
  try {
    await migrate(pool, 'workflow', workflowMigrationsDir);
    await insertUser(pool, {
      email,
      passwordHash: await hashPassword(password),
      authProvider: 'internal',
      globalRoles: ['PlatformAdmin'],
    });
  } finally {
    await pool.end();
  }
}

/** A JSON call to the workflow API as the benchmark's administrator; throws on a non-2xx answer. */
export type WorkflowCall = (
  method: Dispatcher.HttpMethod,
  path: string,
  body?: unknown,
) => Promise<Record<string, string>>;

/**
 * Logs in as the benchmark's administrator and returns a caller carrying its token. Calls go
 * through a keep-alive undici pool, as the shipped worker's do: `fetch` costs several times the CPU
 * per request, which on a two-core machine the service under test would pay for.
 */
export async function workflowClient(base: string): Promise<WorkflowCall> {
  const pool = new Pool(base);
  let token: string | null = null;
  const call: WorkflowCall = async (method, path, body) => {
    const answer = await pool.request({
      method,
      path,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await answer.body.text();
    if (answer.statusCode < 200 || answer.statusCode > 299)
      throw new Error(`${method} ${path}: ${answer.statusCode} ${text}`);
    return JSON.parse(text) as Record<string, string>;
  };
  token = (await call('POST', '/api/v1/auth/login', { email, password })).access_token ?? null;
  return call;
}
