import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, fixtureXml, type EngineFixture } from './engine-fixture.js';

interface Incident {
  activity_id: string;
  message: string;
}

describe('business rule tasks map the decision result as Camunda does', () => {
  let f: EngineFixture;

  const deployDecisions = async (xml: string): Promise<void> => {
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/decisions',
      token: f.tokens.developer,
      headers: { 'x-org-id': f.orgId },
      body: { xml },
    });
    assert.equal(response.statusCode, 201, response.body);
  };
  const deployProcess = async (xml: string): Promise<void> => {
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, xml },
    });
    assert.equal(response.statusCode, 201, response.body);
  };
  const incidentsOf = async (id: string): Promise<Incident[]> =>
    (await f.instance(id)).incidents as Incident[];

  before(async () => {
    f = await createEngineFixture();
    const dmn = await fixtureXml('decision-mappings.dmn');
    await deployDecisions(dmn);
    // Version 2 of "size" only; the "pinned" task still evaluates version 1.
    await deployDecisions(dmn.replace('then "large"', 'then "LARGE"'));
    for (const fixture of ['decision-mappings.bpmn', 'decision-mapping-violation.bpmn']) {
      assert.equal((await f.deploy(fixture)).statusCode, 201);
    }
  });
  after(() => f.close());

  test('each mapping stores its shape of the result in a completed instance', async () => {
    const instance = await f.start('mappings', { n: 2 });
    assert.equal(instance.state, 'completed', JSON.stringify(instance));
    assert.deepEqual(instance.variables, {
      n: 2,
      entry: 'a',
      result: { letter: 'a', number: 1 },
      entries: ['a', 'b', 'c'],
      list: [
        { letter: 'a', number: 1 },
        { letter: 'b', number: 2 },
        { letter: 'c', number: 3 },
      ],
      total: 6,
      size: { size: 'LARGE' },
      sizeV1: 'large',
      // Zeebe: the decision's value as evaluated
      asIs: [
        { letter: 'a', number: 1 },
        { letter: 'b', number: 2 },
        { letter: 'c', number: 3 },
      ],
    });
  });

  test('no matching rule gives null for single mappings and an empty list for the others', async () => {
    const instance = await f.start('mappings', { n: 0 });
    assert.equal(instance.state, 'completed', JSON.stringify(instance));
    assert.deepEqual(instance.variables, {
      n: 0,
      entry: null,
      result: null,
      entries: [],
      list: [],
      total: null,
      size: { size: 'small' },
      sizeV1: 'small',
      asIs: [],
    });
  });

  test('a result the mapping does not fit raises an incident naming the decision and mapping', async () => {
    const fits = await f.start('violation', { n: 0 });
    assert.equal(fits.state, 'completed');
    assert.equal((fits.variables as { letter: unknown }).letter, null);

    const instance = await f.start('violation', { n: 1 });
    assert.equal(instance.state, 'incident');
    const incidents = await incidentsOf(instance.id);
    assert.equal(incidents.length, 1);
    assert.equal(incidents[0]?.activity_id, 'decide');
    assert.equal(
      incidents[0]?.message,
      "decision 'letters': mapDecisionResult 'singleEntry' needs at most one matched rule, but 2 rules matched",
    );
  });

  test('bindings deployment and versionTag, and an unknown version, raise incidents', async () => {
    const base = await fixtureXml('decision-mapping-violation.bpmn');
    const cases = [
      {
        key: 'byDeployment',
        attributes: 'camunda:decisionRefBinding="deployment"',
        message: /decision 'letters': binding 'deployment' is not supported/,
      },
      {
        key: 'byTag',
        attributes: 'camunda:decisionRefBinding="versionTag" camunda:decisionRefVersionTag="v1"',
        message: /decision 'letters': binding 'versionTag' is not supported/,
      },
      {
        key: 'byMissingVersion',
        attributes: 'camunda:decisionRefBinding="version" camunda:decisionRefVersion="7"',
        message: /No version 7 of the decision with key 'letters'/,
      },
    ];
    for (const { key, attributes, message } of cases) {
      await deployProcess(
        base
          .replace('id="violation"', `id="${key}"`)
          .replace('camunda:decisionRef="letters"', `camunda:decisionRef="letters" ${attributes}`),
      );
      const instance = await f.start(key, { n: 0 });
      assert.equal(instance.state, 'incident', key);
      assert.match((await incidentsOf(instance.id))[0]?.message ?? '', message);
    }
  });
});
