import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  DecisionEvaluationFailedError,
  UnknownDecisionError,
} from '../../../src/workflow/decisions/decision-errors.js';
import { DecisionService } from '../../../src/workflow/decisions/decision-service.js';
import { startTestWorkflow, type TestWorkflow } from '../../helpers/workflow.js';
import { definitions, inputData, literalDecision, tableXml } from '../../lib/dmn/dmn-fixtures.js';

interface Deployed {
  id: string;
  decision_key: string;
  version: number;
  name: string;
}
interface Listed extends Deployed {
  deployed_at: string;
}
interface ErrorBody {
  code: string;
  message: string;
  details?: { errors?: { element_id: string | null; message: string }[] } & Record<string, unknown>;
}

const inputs = `${inputData('in_customer', 'customer', 'string')}${inputData('in_amount', 'amount', 'number')}`;

/** A UNIQUE table: gold customers get `goldRate` from 100 up, else 0.05; others 0. */
function discount(goldRate: string, name = 'Discount'): string {
  return `<decision id="discount" name="${name}">
    <informationRequirement><requiredInput href="#in_customer"/></informationRequirement>
    <informationRequirement><requiredInput href="#in_amount"/></informationRequirement>
    ${tableXml(
      {
        hitPolicy: 'UNIQUE',
        inputs: ['customer', 'amount'],
        outputs: [{ name: 'rate' }],
        rules: [
          [['"gold"', '>= 100'], [goldRate]],
          [['"gold"', '< 100'], ['0.05']],
          [['not("gold")', '-'], ['0']],
        ],
      },
      'discount_table',
    )}
  </decision>`;
}

function greeting(text = '"Hello " + customer'): string {
  return literalDecision('greeting', 'Greeting', text, { inputs: ['in_customer'] });
}

describe('decisions over HTTP: deploy, list, rename, evaluate', () => {
  let workflow: TestWorkflow;
  let admin: string;
  let org: string;
  let otherOrg: string;

  before(async () => {
    workflow = await startTestWorkflow();
    await workflow.createUser('root@example.com', 'root password', { platformAdmin: true });
    admin = await workflow.login('root@example.com', 'root password');
    const createOrg = async (slug: string) => {
      const response = await workflow.request({
        method: 'POST',
        url: '/api/v1/orgs',
        token: admin,
        body: { name: slug, slug },
      });
      assert.equal(response.statusCode, 201);
      return (response.json() as { id: string }).id;
    };
    org = await createOrg('acme');
    otherOrg = await createOrg('other');
  });
  after(() => workflow.close());

  const deploy = (xml: string, orgId = org) =>
    workflow.request({
      method: 'POST',
      url: '/api/v1/decisions',
      token: admin,
      headers: { 'x-org-id': orgId },
      body: { xml },
    });
  const list = async (query = '', orgId = org) => {
    const response = await workflow.request({
      method: 'GET',
      url: `/api/v1/decisions${query}`,
      token: admin,
      headers: { 'x-org-id': orgId },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Listed[];
  };
  const evaluate = (key: string, body: unknown, orgId = org) =>
    workflow.request({
      method: 'POST',
      url: `/api/v1/decisions/${encodeURIComponent(key)}/evaluate`,
      token: admin,
      headers: { 'x-org-id': orgId },
      body,
    });
  const deploymentCount = async () => {
    const { rows } = await workflow.database.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM decision_deployments',
    );
    return Number(rows[0]?.n);
  };

  test('every decision of a file becomes a version of its key; versions count per key across files', async () => {
    const first = await deploy(definitions(inputs + discount('0.2') + greeting()));
    assert.equal(first.statusCode, 201, first.body);
    const v1 = first.json() as Deployed[];
    assert.deepEqual(
      v1.map(({ decision_key, version, name }) => ({ decision_key, version, name })),
      [
        { decision_key: 'discount', version: 1, name: 'Discount' },
        { decision_key: 'greeting', version: 1, name: 'Greeting' },
      ],
    );
    assert.deepEqual(Object.keys(v1[0] ?? {}).sort(), [
      'decision_key',
      'history_time_to_live',
      'id',
      'name',
      'version',
    ]);

    // Only the discount changed: it gets version 2; the greeting stays version 1 (same id).
    const second = await deploy(definitions(inputs + discount('0.25') + greeting()));
    assert.equal(second.statusCode, 201, second.body);
    const v2 = second.json() as Deployed[];
    assert.deepEqual(
      v2.map((d) => [d.decision_key, d.version]),
      [
        ['discount', 2],
        ['greeting', 1],
      ],
    );
    assert.equal(v2[1]?.id, v1[1]?.id);
    assert.notEqual(v2[0]?.id, v1[0]?.id);

    // Another file with the greeting changed and a new key.
    const third = await deploy(
      definitions(
        inputs + greeting('"Hi " + customer') + literalDecision('vat', 'VAT', '0.21', { inputs: [] }),
      ),
    );
    assert.equal(third.statusCode, 201, third.body);
    assert.deepEqual(
      (third.json() as Deployed[]).map((d) => [d.decision_key, d.version]),
      [
        ['greeting', 2],
        ['vat', 1],
      ],
    );

    // The same key in another organisation starts at version 1.
    const elsewhere = await deploy(definitions(inputs + discount('0.2')), otherOrg);
    assert.equal(elsewhere.statusCode, 201);
    assert.equal((elsewhere.json() as Deployed[])[0]?.version, 1);
  });

  test('redeploying identical content returns the existing versions and stores nothing', async () => {
    const xml = definitions(inputs + discount('0.3') + greeting('"Hey " + customer'));
    const deployed = await deploy(xml);
    assert.equal(deployed.statusCode, 201);
    const first = deployed.json() as Deployed[];
    const before = await deploymentCount();
    // Like process deployments: 200 with the existing versions when nothing is new.
    const again = await deploy(xml);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), first);
    // Layout and whitespace do not count either: only what the decision evaluates.
    const reformatted = await deploy(`\n\n${xml.replace(/></g, '>\n  <')}\n`);
    assert.equal(reformatted.statusCode, 200, reformatted.body);
    assert.deepEqual(reformatted.json(), first);
    assert.equal(await deploymentCount(), before);
  });

  test('camunda:historyTimeToLive is kept per version; a new value is a new version; a bad one is refused', async () => {
    const withTimeToLive = (value: string) =>
      definitions(
        literalDecision('kept', 'Kept', '1', { inputs: [] }).replace(
          '<decision id="kept"',
          `<decision xmlns:c="http://camunda.org/schema/1.0/dmn" c:historyTimeToLive="${value}" id="kept"`,
        ),
      );
    const first = await deploy(withTimeToLive('P7D'));
    assert.equal(first.statusCode, 201, first.body);
    assert.equal((first.json() as { history_time_to_live: number }[])[0]?.history_time_to_live, 7);
    const same = await deploy(withTimeToLive('7'));
    assert.equal(same.statusCode, 200, 'P7D and 7 are the same time to live');
    const changed = await deploy(withTimeToLive('30'));
    assert.equal(changed.statusCode, 201);
    assert.deepEqual(
      (changed.json() as { version: number; history_time_to_live: number }[]).map((d) => [
        d.version,
        d.history_time_to_live,
      ]),
      [[2, 30]],
    );
    const listed = (await list('?all_versions=true')).filter((d) => d.decision_key === 'kept');
    assert.deepEqual(
      listed.map((d) => [d.version, (d as Listed & { history_time_to_live: unknown }).history_time_to_live]),
      [
        [2, 30],
        [1, 7],
      ],
    );
    const refused = await deploy(withTimeToLive('PT1H'));
    assert.equal(refused.statusCode, 400);
    const errors = (refused.json() as ErrorBody).details?.errors ?? [];
    assert.ok(
      errors.some(
        (e) => e.element_id === 'kept' && /camunda:historyTimeToLive of decision 'kept'/.test(e.message),
      ),
      JSON.stringify(errors),
    );
  });

  test('concurrent deploys of one key take distinct consecutive versions', async () => {
    const files = Array.from({ length: 8 }, (_, i) =>
      definitions(literalDecision('race', 'Race', String(i + 1000), { inputs: [] })),
    );
    const responses = await Promise.all(files.map((xml) => deploy(xml)));
    for (const response of responses) assert.equal(response.statusCode, 201, response.body);
    const versions = responses.map((r) => (r.json() as Deployed[])[0]?.version ?? 0).sort((a, b) => a - b);
    assert.deepEqual(versions, [1, 2, 3, 4, 5, 6, 7, 8]);
    // The latest is the one whose deploy committed last: version 8, whichever file that was.
    const latest = (await list()).find((d) => d.decision_key === 'race');
    assert.equal(latest?.version, 8);
  });

  test('the list gives the latest version per key, or every version with all_versions=true', async () => {
    await deploy(definitions(literalDecision('listed', 'Listed', '1', { inputs: [] })));
    await deploy(definitions(literalDecision('listed', 'Listed', '2', { inputs: [] })));
    const latest = await list();
    const keys = latest.map((d) => d.decision_key);
    assert.equal(new Set(keys).size, keys.length, 'one item per key');
    const listed = latest.find((d) => d.decision_key === 'listed');
    assert.ok(listed);
    assert.deepEqual(Object.keys(listed).sort(), [
      'decision_key',
      'deployed_at',
      'history_time_to_live',
      'id',
      'name',
      'version',
    ]);
    assert.equal(listed.version, 2);
    assert.ok(!Number.isNaN(Date.parse(listed.deployed_at)));

    const all = await list('?all_versions=true');
    assert.deepEqual(
      all.filter((d) => d.decision_key === 'listed').map((d) => d.version),
      [2, 1],
    );
    assert.deepEqual(await list('?all_versions=false'), latest);
    const otherKeys = (await list('', otherOrg)).map((d) => d.decision_key);
    assert.deepEqual(otherKeys, ['discount'], 'organisations see only their own decisions');
  });

  test('renaming a key renames every version of it', async () => {
    await deploy(definitions(literalDecision('named', 'Old name', '1', { inputs: [] })));
    await deploy(definitions(literalDecision('named', 'Old name', '2', { inputs: [] })));
    const renamed = await workflow.request({
      method: 'PATCH',
      url: '/api/v1/decisions/by-key',
      token: admin,
      headers: { 'x-org-id': org },
      body: { decision_key: 'named', name: 'New name' },
    });
    assert.equal(renamed.statusCode, 204, renamed.body);
    assert.equal(renamed.body, '');
    const versions = (await list('?all_versions=true')).filter((d) => d.decision_key === 'named');
    assert.deepEqual(
      versions.map((d) => [d.version, d.name]),
      [
        [2, 'New name'],
        [1, 'New name'],
      ],
    );
    // An identical redeploy keeps the new name; a changed one takes the name in the file.
    const same = await deploy(definitions(literalDecision('named', 'Old name', '2', { inputs: [] })));
    assert.equal(same.statusCode, 200);
    assert.equal((same.json() as Deployed[])[0]?.name, 'New name');
    await deploy(definitions(literalDecision('named', 'File name', '3', { inputs: [] })));
    const after = (await list('?all_versions=true')).filter((d) => d.decision_key === 'named');
    assert.deepEqual(
      after.map((d) => d.name),
      ['File name', 'File name', 'File name'],
    );

    for (const [orgId, key] of [
      [org, 'no-such-key'],
      [otherOrg, 'named'],
    ] as const) {
      const missing = await workflow.request({
        method: 'PATCH',
        url: '/api/v1/decisions/by-key',
        token: admin,
        headers: { 'x-org-id': orgId },
        body: { decision_key: key, name: 'X' },
      });
      assert.equal(missing.statusCode, 404);
      assert.equal((missing.json() as ErrorBody).code, 'U404');
    }
    const empty = await workflow.request({
      method: 'PATCH',
      url: '/api/v1/decisions/by-key',
      token: admin,
      headers: { 'x-org-id': org },
      body: { decision_key: 'named', name: '' },
    });
    assert.equal(empty.statusCode, 400);
  });

  test('evaluation uses the latest version unless one is pinned, and lists the matched rules', async () => {
    await deploy(definitions(inputs + discount('0.4', 'Pinned')));
    const latest = (await list()).find((d) => d.decision_key === 'discount');
    assert.ok(latest && latest.version >= 2);

    const response = await evaluate('discount', { variables: { customer: 'gold', amount: 150 } });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      decision_key: 'discount',
      version: latest.version,
      result: 0.4,
      matched_rules: [
        { decision_id: 'discount', decision_name: 'Pinned', rule_id: 'discount_table_r0', rule_index: 0 },
      ],
    });

    const pinned = await evaluate('discount', { variables: { customer: 'gold', amount: 150 }, version: 1 });
    assert.equal(pinned.statusCode, 200, pinned.body);
    assert.equal((pinned.json() as { result: unknown }).result, 0.2);
    assert.equal((pinned.json() as { version: number }).version, 1);

    const low = await evaluate('discount', { variables: { customer: 'silver', amount: 5 } });
    assert.deepEqual((low.json() as { matched_rules: { rule_index: number }[] }).matched_rules, [
      { decision_id: 'discount', decision_name: 'Pinned', rule_id: 'discount_table_r2', rule_index: 2 },
    ]);

    const greeted = await evaluate('greeting', { variables: { customer: 'Ann' } });
    assert.equal(greeted.statusCode, 200, greeted.body);
    assert.equal((greeted.json() as { result: unknown }).result, 'Hey Ann');
    assert.deepEqual((greeted.json() as { matched_rules: unknown[] }).matched_rules, []);
  });

  test('FEEL values come back as JSON', async () => {
    await deploy(
      definitions(
        literalDecision('feel-values', 'FEEL values', '{d: date("2024-02-29"), p: duration("P1D"), n: 1/3}', {
          inputs: [],
        }),
      ),
    );
    const response = await evaluate('feel-values', { variables: {} });
    assert.equal(response.statusCode, 200, response.body);
    const { result } = response.json() as { result: { d: string; p: string; n: number } };
    assert.equal(result.d, '2024-02-29');
    assert.equal(result.p, 'P1D');
    assert.ok(Math.abs(result.n - 1 / 3) < 1e-12);
  });

  test('unknown keys and versions are 404', async () => {
    for (const [key, body, orgId] of [
      ['no-such-key', { variables: {} }, org],
      ['discount', { variables: {}, version: 99 }, org],
      ['greeting', { variables: { customer: 'x' } }, otherOrg],
    ] as const) {
      const response = await evaluate(key, body, orgId);
      assert.equal(response.statusCode, 404, `${key}: ${response.body}`);
      assert.equal((response.json() as ErrorBody).code, 'U404');
    }
  });

  test('an evaluation error is 422 U422 naming the decision and the rule', async () => {
    const missing = await evaluate('discount', { variables: { customer: 'gold' } });
    assert.equal(missing.statusCode, 422, missing.body);
    const body = missing.json() as ErrorBody;
    assert.equal(body.code, 'U422');
    assert.match(body.message, /decision 'Pinned'.*required input 'amount' was not provided/);
    assert.equal(body.details?.decision_key, 'discount');
    assert.equal(body.details?.decision_id, 'discount');
    assert.equal(body.details?.element_id, 'in_amount');

    await deploy(
      definitions(
        `<decision id="overlap" name="Overlap">${tableXml(
          {
            hitPolicy: 'UNIQUE',
            inputs: ['x'],
            outputs: [{ name: 'r' }],
            rules: [
              [['> 1'], ['"a"']],
              [['> 2'], ['"b"']],
            ],
          },
          'overlap_table',
        )}</decision>`,
      ),
    );
    const overlap = await evaluate('overlap', { variables: { x: 5 } });
    assert.equal(overlap.statusCode, 422, overlap.body);
    const overlapBody = overlap.json() as ErrorBody;
    assert.match(overlapBody.message, /decision 'Overlap', rule 1 \(overlap_table_r0\): hit policy UNIQUE/);
    assert.equal(overlapBody.details?.rule_id, 'overlap_table_r0');
    assert.equal(overlapBody.details?.rule_index, 0);
  });

  test('evaluateForProcess serves the BPMN engine with typed errors', async () => {
    const service = new DecisionService(workflow.database.pool);
    const evaluation = await service.evaluateForProcess(org, 'discount', 1, { customer: 'gold', amount: 10 });
    assert.deepEqual(evaluation, {
      decisionKey: 'discount',
      version: 1,
      result: 0.05,
      resultList: [{ rate: 0.05 }],
      matchedRules: [
        { decisionId: 'discount', decisionName: 'Discount', ruleId: 'discount_table_r1', ruleIndex: 1 },
      ],
    });
    const client = await workflow.database.pool.connect();
    try {
      const inTransaction = await service.evaluateForProcess(
        org,
        'greeting',
        null,
        { customer: 'B' },
        { db: client },
      );
      assert.equal(inTransaction.result, 'Hey B');
    } finally {
      client.release();
    }
    await assert.rejects(
      service.evaluateForProcess(org, 'discount', 42, {}),
      (error: unknown) => error instanceof UnknownDecisionError && error.version === 42,
    );
    await assert.rejects(
      service.evaluateForProcess(org, 'discount', null, {}),
      (error: unknown) =>
        error instanceof DecisionEvaluationFailedError &&
        error.decisionKey === 'discount' &&
        error.decisionId === 'discount' &&
        /required input/.test(error.message),
    );
  });
});
