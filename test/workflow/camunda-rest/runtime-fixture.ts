import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { LightMyRequestResponse } from 'fastify';
import { createCamundaFixture, type CamundaFixture, type FixtureUser } from './camunda-fixture.js';

/**
 * The Camunda fixture with `runtime.bpmn` (user tasks, messages, a signal, a gateway that raises an
 * incident) deployed in both orgs through weft's own API, and an `operator` (Operator in acme).
 */
export interface RuntimeFixture extends CamundaFixture {
  operator: FixtureUser;
  /** Starts a process of runtime.bpmn in an org (acme by default) as the admin. */
  startProcess(
    processKey: string,
    variables?: Record<string, unknown>,
    options?: { org?: 'acme' | 'beta'; businessKey?: string },
  ): Promise<string>;
  /** Calls weft's own API as the admin; fails the test on a status of 300 or more. */
  native(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<unknown>;
  /** A request to `/engine-rest<path>` with a Bearer token. */
  engineRest(method: string, path: string, token: string, body?: unknown): Promise<LightMyRequestResponse>;
}

/** Starts the runtime fixture. */
export async function createRuntimeFixture(): Promise<RuntimeFixture> {
  const fixture = await createCamundaFixture();
  try {
    return await extend(fixture);
  } catch (error) {
    // A setup that failed leaves no service running: the test file could not end otherwise.
    await fixture.close();
    throw error;
  }
}

async function extend(fixture: CamundaFixture): Promise<RuntimeFixture> {
  const native = async (method: string, url: string, body?: unknown, headers?: Record<string, string>) => {
    const response = await fixture.workflow.request({
      method,
      url,
      token: fixture.admin,
      body,
      ...(headers === undefined ? {} : { headers }),
    });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.body === '' ? null : (response.json() as unknown);
  };
  const xml = await readFile(new URL('./fixtures/runtime.bpmn', import.meta.url), 'utf8');
  for (const orgId of Object.values(fixture.orgs)) {
    const group = (await native('POST', `/api/v1/orgs/${orgId}/process-groups`, { name: 'Runtime' })) as {
      id: string;
    };
    await native('POST', '/api/v1/deployments', { org_id: orgId, process_group_id: group.id, xml });
  }
  const email = 'operator@example.com';
  const password = 'operator password';
  const userId = await fixture.workflow.createUser(email, password);
  await native('PUT', `/api/v1/orgs/${fixture.orgs.acme}/members/${userId}`, { roles: ['Operator'] });
  const jwt = await fixture.workflow.login(email, password);
  return {
    ...fixture,
    operator: { email, password, jwt, apiKey: '' },
    native,
    startProcess: async (processKey, variables = {}, options = {}) => {
      const started = (await native('POST', '/api/v1/process-instances', {
        org_id: fixture.orgs[options.org ?? 'acme'],
        process_key: processKey,
        variables,
        ...(options.businessKey === undefined ? {} : { business_key: options.businessKey }),
      })) as { id: string };
      return started.id;
    },
    engineRest: (method, path, token, body) =>
      fixture.camunda({ method, url: `/engine-rest${path}`, body, authorization: `Bearer ${token}` }),
  };
}

/** Asserts a Camunda error body: the status, `{type, message}` and nothing else, the message's text. */
export function assertCamundaError(
  response: LightMyRequestResponse,
  status: number,
  type: string,
  message?: RegExp,
): void {
  assert.equal(response.statusCode, status, response.body);
  const body = response.json() as { type: string; message: string };
  assert.deepEqual(Object.keys(body).sort(), ['message', 'type']);
  assert.equal(body.type, type);
  if (message) assert.match(body.message, message);
}
