import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestWorkflow, type TestWorkflow } from '../../helpers/workflow.js';
import { definitions, inputData, tableXml } from '../../lib/dmn/dmn-fixtures.js';

interface ErrorBody {
  code: string;
  details?: { errors?: { element_id: string | null; message: string }[] };
}

/** `count` decisions, each a table reading `score` with texts of its own, keys prefixed by `prefix`. */
function manyDecisions(prefix: string, count: number): string {
  let body = inputData(`${prefix}_in`, 'score', 'number');
  for (let i = 0; i < count; i++) {
    const table = tableXml(
      {
        inputs: ['score'],
        outputs: [{ name: 'out' }],
        rules: [
          [[`< ${i}`], [`"low ${i}"`]],
          [[`>= ${i}`], [`"high " + string(score + ${i})`]],
        ],
      },
      `${prefix}_t${i}`,
    );
    body += `<decision id="${prefix}_d${i}" name="${prefix} decision ${i}"><informationRequirement><requiredInput href="#${prefix}_in"/></informationRequirement>${table}</decision>`;
  }
  return definitions(body);
}

/**
 * Issue 16: a DMN file with 20,000 decisions held the event loop for 23 minutes while its FEEL was
 * parsed (each parse indexed every name of the file). A file over the limits is refused before any
 * parsing, and what is allowed deploys in time proportional to its size.
 */
describe('DMN deploys are bounded: limits refuse oversized files, analysis is linear', () => {
  let workflow: TestWorkflow;
  let admin: string;
  let org: string;

  before(async () => {
    workflow = await startTestWorkflow({
      env: { WORKFLOW_DMN_MAX_ELEMENTS: '3000', WORKFLOW_FEEL_MAX_EXPRESSION_LENGTH: '500' },
    });
    await workflow.createUser('root@example.com', 'root password', { platformAdmin: true });
    admin = await workflow.login('root@example.com', 'root password');
    const created = await workflow.request({
      method: 'POST',
      url: '/api/v1/orgs',
      token: admin,
      body: { name: 'acme', slug: 'acme' },
    });
    org = (created.json() as { id: string }).id;
  });
  after(() => workflow.close());

  const deploy = (xml: string) =>
    workflow.request({
      method: 'POST',
      url: '/api/v1/decisions',
      token: admin,
      headers: { 'x-org-id': org },
      body: { xml },
    });
  const timedDeploy = async (xml: string): Promise<number> => {
    const started = performance.now();
    const response = await deploy(xml);
    assert.equal(response.statusCode, 201, response.body.slice(0, 500));
    return performance.now() - started;
  };

  test('a 20,000-decision file is refused at once with 400 naming WORKFLOW_DMN_MAX_ELEMENTS', async () => {
    // About 2 MB: 20,000 literal decisions, as in the issue.
    let decisions = '';
    for (let i = 0; i < 20_000; i++) {
      decisions += `<decision id="d${i}" name="d${i}"><literalExpression><text>${i}</text></literalExpression></decision>`;
    }
    const xml = definitions(decisions);
    const started = performance.now();
    const response = await deploy(xml);
    const elapsed = performance.now() - started;
    assert.equal(response.statusCode, 400, response.body.slice(0, 500));
    const body = response.json() as ErrorBody;
    assert.equal(body.code, 'U400');
    assert.match(
      body.details?.errors?.[0]?.message ?? '',
      /20000 DRG elements.*at most 3000.*WORKFLOW_DMN_MAX_ELEMENTS/,
    );
    assert.ok(elapsed < 2000, `refusing took ${elapsed.toFixed(0)} ms`);
  });

  test('a FEEL text over WORKFLOW_FEEL_MAX_EXPRESSION_LENGTH is refused naming the limit', async () => {
    const long = `"${'x'.repeat(600)}"`;
    const response = await deploy(
      definitions(
        `<decision id="long" name="Long"><literalExpression><text>${long}</text></literalExpression></decision>`,
      ),
    );
    assert.equal(response.statusCode, 400, response.body);
    const errors = (response.json() as ErrorBody).details?.errors ?? [];
    assert.equal(errors[0]?.element_id, 'long');
    assert.match(
      errors[0]?.message ?? '',
      /602 characters; at most 500.*WORKFLOW_FEEL_MAX_EXPRESSION_LENGTH/,
    );
  });

  test('2,000 decisions deploy in about ten times the time of 200 (not a hundred times)', async () => {
    await timedDeploy(manyDecisions('warm', 200)); // JIT and caches warm up on a file of their own
    const small = Math.min(
      await timedDeploy(manyDecisions('s1', 200)),
      await timedDeploy(manyDecisions('s2', 200)),
    );
    const large = await timedDeploy(manyDecisions('large', 2000));
    const ratio = large / small;
    console.log(
      `deploy: 200 decisions ${small.toFixed(0)} ms, 2,000 decisions ${large.toFixed(0)} ms, ratio ${ratio.toFixed(1)}`,
    );
    // Linear is 10; the quadratic analysis this replaces was over 50 (and 20,000 took 23 minutes).
    assert.ok(ratio < 30, `2,000 decisions took ${ratio.toFixed(1)}× the time of 200`);
  });
});
