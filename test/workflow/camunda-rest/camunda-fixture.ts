import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { LightMyRequestResponse } from 'fastify';
import { startTestWorkflow, type TestWorkflow } from '../../helpers/workflow.js';

/** A user of the fixture: its email, password, JWT and API key. */
export interface FixtureUser {
  email: string;
  password: string;
  jwt: string;
  apiKey: string;
}

/**
 * A workflow service with two orgs (`acme`, `beta`), `charge.bpmn` deployed in both, and users:
 * `worker` (Worker in acme), `both` (Worker in acme and beta), `reader` (Reader in acme).
 */
export interface CamundaFixture {
  workflow: TestWorkflow;
  admin: string;
  orgs: { acme: string; beta: string };
  users: { worker: FixtureUser; both: FixtureUser; reader: FixtureUser };
  /** Starts `charge-card` in an org (acme by default) as the admin. */
  start(
    variables?: Record<string, unknown>,
    options?: { org?: 'acme' | 'beta'; businessKey?: string },
  ): Promise<string>;
  /** The instance as weft's native API shows it. */
  instance(id: string): Promise<{
    state: string;
    variables: Record<string, unknown>;
    active_element_ids: string[];
    incidents: unknown[];
  }>;
  /** A request to `/engine-rest…` with an Authorization header (the worker's JWT by default). */
  camunda(options: {
    method: string;
    url: string;
    body?: unknown;
    authorization?: string | null;
    headers?: Record<string, string>;
  }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** `Basic` credentials for an Authorization header. */
export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** Starts the fixture. */
export async function createCamundaFixture(): Promise<CamundaFixture> {
  const workflow = await startTestWorkflow();
  await workflow.createUser('admin@example.com', 'admin password', { platformAdmin: true });
  const admin = await workflow.login('admin@example.com', 'admin password');
  const call = async (method: string, url: string, body?: unknown, token = admin) => {
    const response = await workflow.request({ method, url, token, body });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json() as Record<string, unknown>;
  };
  const xml = await readFile(new URL('./fixtures/charge.bpmn', import.meta.url), 'utf8');
  const orgs = { acme: '', beta: '' };
  for (const slug of ['acme', 'beta'] as const) {
    const org = await call('POST', '/api/v1/orgs', { name: slug, slug });
    orgs[slug] = org.id as string;
    const group = await call('POST', `/api/v1/orgs/${orgs[slug]}/process-groups`, { name: 'Default' });
    await call('POST', '/api/v1/deployments', { org_id: orgs[slug], process_group_id: group.id, xml });
  }
  const user = async (name: string, memberships: [string, string][]): Promise<FixtureUser> => {
    const email = `${name}@example.com`;
    const password = `${name} password`;
    const userId = await workflow.createUser(email, password);
    for (const [orgId, role] of memberships)
      await call('PUT', `/api/v1/orgs/${orgId}/members/${userId}`, { roles: [role] });
    const jwt = await workflow.login(email, password);
    const key = await call('POST', '/api/v1/api-keys', { name: `${name} key` }, jwt);
    return { email, password, jwt, apiKey: key.plaintext_key as string };
  };
  const users = {
    worker: await user('worker', [[orgs.acme, 'Worker']]),
    both: await user('both', [
      [orgs.acme, 'Worker'],
      [orgs.beta, 'Worker'],
    ]),
    reader: await user('reader', [[orgs.acme, 'Reader']]),
  };
  return {
    workflow,
    admin,
    orgs,
    users,
    start: async (variables = {}, options = {}) => {
      const started = await call('POST', '/api/v1/process-instances', {
        org_id: orgs[options.org ?? 'acme'],
        process_key: 'charge-card',
        variables,
        ...(options.businessKey === undefined ? {} : { business_key: options.businessKey }),
      });
      return started.id as string;
    },
    instance: async (id) =>
      (await call('GET', `/api/v1/process-instances/${id}`)) as Awaited<
        ReturnType<CamundaFixture['instance']>
      >,
    camunda: ({ method, url, body, authorization, headers }) =>
      workflow.service.app.inject({
        method: method as 'GET',
        url,
        headers: {
          ...(authorization === null ? {} : { authorization: authorization ?? `Bearer ${users.worker.jwt}` }),
          ...headers,
        },
        ...(body === undefined ? {} : { payload: body as object }),
      }),
    close: () => workflow.close(),
  };
}
