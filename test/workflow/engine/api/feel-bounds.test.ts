import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { definitions, literalDecision } from '../../../lib/dmn/dmn-fixtures.js';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

interface Incident {
  activity_id: string;
  message: string;
}

const CATASTROPHIC = '^(a+)+$';
const HOSTILE = `${'a'.repeat(40)}b`;
// Within the range limit, but 9 million iterations: only the time budget stops it.
const SLOW_LOOP = 'count(for i in 1..3000, j in 1..3000 return i)';
const BIG_RANGE = 'for i in 1..10000000 return i';

/** A process: start → gateway on `condition` (→ yes) or default (→ no) → end events. */
function gatewayProcess(key: string, condition: string): string {
  const escaped = condition.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="Defs" targetNamespace="urn:weft:test">
  <bpmn:process id="${key}" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:exclusiveGateway id="check" default="toNo" />
    <bpmn:endEvent id="yes" />
    <bpmn:endEvent id="no" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="check" />
    <bpmn:sequenceFlow id="toYes" sourceRef="check" targetRef="yes">
      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">=${escaped}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="toNo" sourceRef="check" targetRef="no" />
  </bpmn:process>
</bpmn:definitions>`;
}

/** A process: start → business rule task (decision `decisionKey`) → end. */
function ruleTaskProcess(key: string, decisionKey: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="Defs" targetNamespace="urn:weft:test">
  <bpmn:process id="${key}" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:businessRuleTask id="decide" camunda:decisionRef="${decisionKey}" camunda:resultVariable="out" />
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="decide" />
    <bpmn:sequenceFlow id="f2" sourceRef="decide" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;
}

/**
 * Issue 16: FEEL regular expressions backtracked catastrophically (`^(a+)+$` on 31 characters took
 * 10 s) and FEEL loops ran unbounded (`for i in 1..10000000` took 5–7 s and 1.2 GB). Patterns run on
 * RE2; ranges are capped by WORKFLOW_FEEL_MAX_LIST_LENGTH; loops get WORKFLOW_FEEL_TIMEOUT_MS.
 */
describe('FEEL cannot stall the workflow service', () => {
  let f: EngineFixture;
  const timeoutMs = 500;

  const request = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    f.workflow.request({ method, url, token: f.tokens.developer, headers, ...(body ? { body } : {}) });
  const evaluate = (key: string, variables: Record<string, unknown>) =>
    request('POST', `/api/v1/decisions/${key}/evaluate`, { variables }, { 'x-org-id': f.orgId });
  const deployProcess = async (xml: string) => {
    const response = await request('POST', '/api/v1/deployments', {
      org_id: f.orgId,
      process_group_id: f.groupId,
      xml,
    });
    assert.equal(response.statusCode, 201, response.body);
  };
  const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> => {
    const started = performance.now();
    const value = await work();
    return { value, ms: performance.now() - started };
  };

  before(async () => {
    f = await createEngineFixture({ WORKFLOW_FEEL_TIMEOUT_MS: String(timeoutMs) });
    const dmn = definitions(
      literalDecision('regex', 'Regex', `matches(s, "${CATASTROPHIC}")`) +
        literalDecision('bigRange', 'Big range', BIG_RANGE) +
        literalDecision('slowLoop', 'Slow loop', SLOW_LOOP) +
        literalDecision('backref', 'Backreference', 'matches(s, "(a)\\\\1")'),
    );
    const deployed = await request('POST', '/api/v1/decisions', { xml: dmn }, { 'x-org-id': f.orgId });
    assert.equal(deployed.statusCode, 201, deployed.body);
    await deployProcess(gatewayProcess('regexGate', `matches(s, "${CATASTROPHIC}")`));
    await deployProcess(gatewayProcess('loopGate', `${SLOW_LOOP} > 0`));
    await deployProcess(ruleTaskProcess('loopRule', 'slowLoop'));
  });
  after(() => f.close());

  test(`matches(s, "${CATASTROPHIC}") on 'a'×40+'b' answers within a second: decision and gateway`, async () => {
    const decided = await timed(() => evaluate('regex', { s: HOSTILE }));
    assert.equal(decided.value.statusCode, 200, decided.value.body);
    assert.equal((decided.value.json() as { result: unknown }).result, false);
    assert.ok(decided.ms < 1000, `decision took ${decided.ms.toFixed(0)} ms`);

    const routed = await timed(() => f.start('regexGate', { s: HOSTILE }));
    assert.equal(routed.value.state, 'completed', JSON.stringify(routed.value));
    assert.ok(routed.ms < 1000, `gateway took ${routed.ms.toFixed(0)} ms`);
  });

  test('a pattern RE2 cannot compile (a backreference) fails the evaluation with 422 naming RE2', async () => {
    const response = await evaluate('backref', { s: 'aa' });
    assert.equal(response.statusCode, 422, response.body);
    assert.match((response.json() as { message: string }).message, /not a valid RE2 pattern/);
  });

  test('a range over WORKFLOW_FEEL_MAX_LIST_LENGTH is refused at once with 422', async () => {
    const refused = await timed(() => evaluate('bigRange', {}));
    assert.equal(refused.value.statusCode, 422, refused.value.body);
    assert.match((refused.value.json() as { message: string }).message, /WORKFLOW_FEEL_MAX_LIST_LENGTH/);
    assert.ok(refused.ms < 1000, `took ${refused.ms.toFixed(0)} ms`);
  });

  test('a loop over the time budget is 422, and /health answers meanwhile', async () => {
    const started = performance.now();
    const [looped, health] = await Promise.all([
      evaluate('slowLoop', {}),
      f.workflow.request({ method: 'GET', url: '/health' }),
    ]);
    const healthMs = performance.now() - started;
    assert.equal(looped.statusCode, 422, looped.body);
    assert.match((looped.json() as { message: string }).message, /WORKFLOW_FEEL_TIMEOUT_MS/);
    assert.equal(health.statusCode, 200, health.body);
    // The health check waits at most for the budget the loop was given, not for the loop.
    assert.ok(healthMs < timeoutMs + 2000, `/health took ${healthMs.toFixed(0)} ms`);
  });

  test('the same loop in a gateway condition or a business rule task is an incident, quickly', async () => {
    for (const [key, activity] of [
      ['loopGate', 'check'],
      ['loopRule', 'decide'],
    ] as const) {
      const { value: instance, ms } = await timed(() => f.start(key));
      assert.equal(instance.state, 'incident', `${key}: ${JSON.stringify(instance)}`);
      assert.ok(ms < timeoutMs + 2000, `${key} took ${ms.toFixed(0)} ms`);
      const incidents = (await f.instance(instance.id)).incidents as Incident[];
      assert.equal(incidents[0]?.activity_id, activity, key);
      assert.match(incidents[0]?.message ?? '', /WORKFLOW_FEEL_TIMEOUT_MS/, key);
    }
  });
});
