import assert from 'node:assert/strict';
import type { EngineFixture } from './engine-fixture.js';

/** The open user tasks of an instance, as their activity ids, sorted. */
export async function openTasksOf(f: EngineFixture, instanceId: string): Promise<string[]> {
  return (await listTasks(f, instanceId)).map((task) => task.activity_id).sort();
}

/** Completes the one open user task of an instance at `activityId`, through the API. */
export async function completeTaskAt(
  f: EngineFixture,
  instanceId: string,
  activityId: string,
  variables: Record<string, unknown> = {},
): Promise<void> {
  const tasks = (await listTasks(f, instanceId)).filter((task) => task.activity_id === activityId);
  assert.equal(tasks.length, 1, `one open user task at '${activityId}'`);
  const done = await f.workflow.request({
    method: 'POST',
    url: `/api/v1/tasks/${tasks[0]?.id}/complete`,
    token: f.tokens.operator,
    body: { variables },
  });
  assert.equal(done.statusCode, 204, done.body);
}

async function listTasks(
  f: EngineFixture,
  instanceId: string,
): Promise<{ id: string; activity_id: string }[]> {
  const response = await f.workflow.request({
    method: 'GET',
    url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instanceId}`,
    token: f.tokens.reader,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { id: string; activity_id: string }[];
}
