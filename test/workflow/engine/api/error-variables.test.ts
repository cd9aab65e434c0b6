import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

describe("Camunda 7's errorCodeVariable and errorMessageVariable", () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    const deployed = await f.deploy('error-variables.bpmn');
    assert.equal(deployed.statusCode, 201, deployed.body);
  });
  after(() => f.close());

  test('an event sub-process catching an error end event receives its code and camunda:errorMessage', async () => {
    const started = await f.start('error-variables');
    const instance = await f.instance(started.id);
    assert.deepEqual(instance.active_element_ids, ['onError', 'wait']);
    // The event sub-process's scope holds them; the task sees them.
    const tasks = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${started.id}`,
        token: f.tokens.reader,
      })
    ).json() as { variables: Record<string, unknown> }[];
    const seen = { ...(instance.variables as Record<string, unknown>), ...tasks[0]?.variables };
    assert.equal(seen.code, 'OUT_OF_STOCK');
    assert.equal(seen.why, 'no item left');
  });
});
