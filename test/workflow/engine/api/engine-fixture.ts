import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { LightMyRequestResponse } from 'fastify';
import { startTestWorkflow, type TestWorkflow } from '../../../helpers/workflow.js';

/** A workflow service with an org, a process group and users of each role, for engine API tests. */
export interface EngineFixture {
  workflow: TestWorkflow;
  orgId: string;
  groupId: string;
  /** Tokens by role: admin (PlatformAdmin), developer, operator, reader, outsider. */
  tokens: Record<'admin' | 'developer' | 'operator' | 'reader' | 'outsider', string>;
  deploy(fixture: string, options?: { draft?: boolean; token?: string }): Promise<LightMyRequestResponse>;
  start(
    processKey: string,
    variables?: Record<string, unknown>,
  ): Promise<Record<string, unknown> & { id: string }>;
  fetch(
    workerId: string,
    topic: string,
    maxTasks?: number,
  ): Promise<{ id: string; variables: Record<string, unknown>; process_instance_id: string }[]>;
  instance(id: string): Promise<Record<string, unknown> & { state: string; active_element_ids: string[] }>;
  close(): Promise<void>;
}

/** Reads a BPMN fixture of this folder. */
export function fixtureXml(name: string): Promise<string> {
  return readFile(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

/** Starts the service and creates the org, group and users. */
export async function createEngineFixture(
  env: Record<string, string> = {},
  clock?: { now(): Date },
): Promise<EngineFixture> {
  const workflow = await startTestWorkflow({ env, ...(clock ? { clock } : {}) });
  await workflow.createUser('admin@example.com', 'admin password', { platformAdmin: true });
  const admin = await workflow.login('admin@example.com', 'admin password');
  const org = await workflow.request({
    method: 'POST',
    url: '/api/v1/orgs',
    token: admin,
    body: { name: 'Acme', slug: 'acme' },
  });
  const orgId = (org.json() as { id: string }).id;
  const tokens = { admin } as EngineFixture['tokens'];
  for (const [role, roles] of [
    ['developer', ['Developer']],
    ['operator', ['Operator']],
    ['reader', ['Reader']],
    ['outsider', []],
  ] as const) {
    const userId = await workflow.createUser(`${role}@example.com`, `${role} password`);
    if (roles.length > 0) {
      const granted = await workflow.request({
        method: 'PUT',
        url: `/api/v1/orgs/${orgId}/members/${userId}`,
        token: admin,
        body: { roles },
      });
      assert.equal(granted.statusCode, 200);
    }
    tokens[role] = await workflow.login(`${role}@example.com`, `${role} password`);
  }
  const group = await workflow.request({
    method: 'POST',
    url: `/api/v1/orgs/${orgId}/process-groups`,
    token: admin,
    body: { name: 'Default' },
  });
  const groupId = (group.json() as { id: string }).id;
  return {
    workflow,
    orgId,
    groupId,
    tokens,
    deploy: async (fixture, options = {}) =>
      workflow.request({
        method: 'POST',
        url: '/api/v1/deployments',
        token: options.token ?? tokens.developer,
        body: {
          org_id: orgId,
          process_group_id: groupId,
          xml: await fixtureXml(fixture),
          draft: options.draft ?? false,
        },
      }),
    start: async (processKey, variables = {}) => {
      const response = await workflow.request({
        method: 'POST',
        url: '/api/v1/process-instances',
        token: tokens.operator,
        body: { org_id: orgId, process_key: processKey, variables },
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json() as Record<string, unknown> & { id: string };
    },
    fetch: async (workerId, topic, maxTasks = 10) => {
      const response = await workflow.request({
        method: 'POST',
        url: '/api/v1/external-tasks/fetch-and-lock',
        body: {
          worker_id: workerId,
          max_tasks: maxTasks,
          topics: [{ topic_name: topic, lock_duration_ms: 60_000 }],
        },
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as {
        id: string;
        variables: Record<string, unknown>;
        process_instance_id: string;
      }[];
    },
    instance: async (id) => {
      const response = await workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances/${id}`,
        token: tokens.reader,
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as Record<string, unknown> & { state: string; active_element_ids: string[] };
    },
    close: () => workflow.close(),
  };
}

/**
 * On a started service: a PlatformAdmin, the org `acme` with a process group, and `fixture`
 * deployed there. For tests that need one deployed process and no other users.
 */
export async function deployAsAdmin(
  workflow: TestWorkflow,
  fixture: string,
): Promise<{ admin: string; orgId: string }> {
  await workflow.createUser('admin@example.com', 'admin password', { platformAdmin: true });
  const admin = await workflow.login('admin@example.com', 'admin password');
  const org = await workflow.request({
    method: 'POST',
    url: '/api/v1/orgs',
    token: admin,
    body: { name: 'acme', slug: 'acme' },
  });
  const orgId = (org.json() as { id: string }).id;
  const group = await workflow.request({
    method: 'POST',
    url: `/api/v1/orgs/${orgId}/process-groups`,
    token: admin,
    body: { name: 'Default' },
  });
  const deployed = await workflow.request({
    method: 'POST',
    url: '/api/v1/deployments',
    token: admin,
    body: {
      org_id: orgId,
      process_group_id: (group.json() as { id: string }).id,
      xml: await fixtureXml(fixture),
    },
  });
  assert.equal(deployed.statusCode, 201, deployed.body);
  return { admin, orgId };
}
