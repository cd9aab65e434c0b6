import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, fixtureXml, type EngineFixture } from './engine-fixture.js';

interface Incident {
  activity_id: string;
  message: string;
}

describe('a called process or decision chosen by an expression when the activity is entered', () => {
  let f: EngineFixture;

  const post = async (url: string, body: unknown) => {
    const response = await f.workflow.request({
      method: 'POST',
      url,
      token: f.tokens.developer,
      headers: { 'x-org-id': f.orgId },
      body,
    });
    assert.equal(response.statusCode, 201, response.body);
  };
  const variablesOf = async (id: string) => (await f.instance(id)).variables as Record<string, unknown>;
  const incidentsOf = async (id: string) => (await f.instance(id)).incidents as Incident[];
  const onlyIncident = async (id: string): Promise<Incident> => {
    const detail = await f.instance(id);
    assert.equal(detail.state, 'incident', JSON.stringify(detail));
    const incidents = detail.incidents as Incident[];
    assert.equal(incidents.length, 1, JSON.stringify(incidents));
    return incidents[0] as Incident;
  };
  // Sets the variables on the instance and retries its incidents, as an operator fixing it would.
  const fixAndRetry = async (id: string, variables: Record<string, unknown>) => {
    const patched = await f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/process-instances/${id}/variables`,
      token: f.tokens.operator,
      body: { variables },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const retried = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${id}/retry`,
      token: f.tokens.operator,
    });
    assert.equal(retried.statusCode, 200, retried.body);
  };

  before(async () => {
    f = await createEngineFixture();
    const children = await fixtureXml('dynamic-children.bpmn');
    for (const xml of [children, children.replaceAll('"child-a"</', '"child-a-v2"</')]) {
      await post('/api/v1/deployments', { org_id: f.orgId, process_group_id: f.groupId, xml });
    }
    const callers = await f.deploy('dynamic-callers.bpmn');
    assert.equal(callers.statusCode, 201, callers.body);
    const dmn = await fixtureXml('decision-mappings.dmn');
    const first = '<rule id="fl1"><inputEntry><text>&gt;= 1</text></inputEntry><outputEntry><text>"a"</text>';
    assert.ok(dmn.includes(first));
    // Version 2 of firstLetter answers "A" where version 1 answers "a".
    for (const xml of [dmn, dmn.replace(first, first.replace('"a"', '"A"'))]) {
      await post('/api/v1/decisions', { xml });
    }
  });
  after(() => f.close());

  test('calledElement="${target}" starts the latest version of the key the variable names', async () => {
    const a = await f.start('juelCaller', { target: 'child-a' });
    assert.equal(a.state, 'completed', JSON.stringify(a));
    assert.equal((await variablesOf(a.id)).ran, 'child-a-v2');
    const b = await f.start('juelCaller', { target: 'child-b' });
    assert.equal((await variablesOf(b.id)).ran, 'child-b');
  });

  test('JUEL text around an expression and a Zeebe FEEL processId name the key too', async () => {
    const composed = await f.start('composedCaller', { suffix: 'b' });
    assert.equal(composed.state, 'completed', JSON.stringify(composed));
    assert.equal((await variablesOf(composed.id)).ran, 'child-b');
    const feel = await f.start('feelCaller', { target: 'child-b' });
    assert.equal(feel.state, 'completed', JSON.stringify(feel));
    assert.equal((await variablesOf(feel.id)).ran, 'child-b');
  });

  test('binding version with calledElementVersion="${childVersion}" starts that version (number or digits)', async () => {
    const v1 = await f.start('versionCaller', { target: 'child-a', childVersion: 1 });
    assert.equal(v1.state, 'completed', JSON.stringify(v1));
    assert.equal((await variablesOf(v1.id)).ran, 'child-a');
    const v2 = await f.start('versionCaller', { target: 'child-a', childVersion: '2' });
    assert.equal((await variablesOf(v2.id)).ran, 'child-a-v2');
  });

  test('a key that is not a text is an expression incident naming the element and the value; fixing the variable and retrying calls', async () => {
    const instance = await f.start('juelCaller', { target: 42 });
    const incident = await onlyIncident(instance.id);
    assert.equal(incident.activity_id, 'juelCall');
    assert.equal(
      incident.message,
      "called element of 'juelCall': ${target} gives a number 42, which is not a process key (a text that is not empty)",
    );
    await fixAndRetry(instance.id, { target: 'child-b' });
    const done = await f.instance(instance.id);
    assert.equal(done.state, 'completed', JSON.stringify(done));
    assert.equal((done.variables as Record<string, unknown>).ran, 'child-b');
  });

  test('an empty text or null from a FEEL processId is refused the same way', async () => {
    const empty = await f.start('feelCaller', { target: '' });
    assert.match(
      (await onlyIncident(empty.id)).message,
      /^called element of 'feelCall': =target gives a string "", which is not a process key/,
    );
    const missing = await f.start('feelCaller', {});
    assert.match(
      (await onlyIncident(missing.id)).message,
      /^called element of 'feelCall': =target gives null, which is not a process key/,
    );
  });

  test('a key no process has is an incident; setting the variable and retrying evaluates the expression again', async () => {
    const instance = await f.start('juelCaller', { target: 'no-such-child' });
    const incident = await onlyIncident(instance.id);
    assert.equal(incident.activity_id, 'juelCall');
    assert.match(incident.message, /call activity 'juelCall': no enabled process 'no-such-child' to call/);
    await fixAndRetry(instance.id, { target: 'child-a' });
    const done = await f.instance(instance.id);
    assert.equal(done.state, 'completed', JSON.stringify(done));
    assert.equal((done.variables as Record<string, unknown>).ran, 'child-a-v2');
  });

  test('a version that is not a whole number of 1 or more is an incident naming the value', async () => {
    for (const [childVersion, shown] of [
      ['latest', 'a string "latest"'],
      [1.5, 'a number 1.5'],
      [0, 'a number 0'],
    ] as const) {
      const instance = await f.start('versionCaller', { target: 'child-a', childVersion });
      assert.equal(
        (await onlyIncident(instance.id)).message,
        `called element version of 'versionCall': \${childVersion} gives ${shown}, which is not a version number (a whole number of 1 or more)`,
      );
    }
  });

  test('a JUEL key reading an unknown variable is an incident on the element', async () => {
    const instance = await f.start('juelCaller', {});
    const incident = await onlyIncident(instance.id);
    assert.equal(incident.activity_id, 'juelCall');
    assert.match(
      incident.message,
      /^called element of 'juelCall': Unknown property used in expression: \$\{target\}/,
    );
  });

  test('camunda:decisionRef="${decision}" evaluates the latest version of the decision it names', async () => {
    const instance = await f.start('juelDecision', { decision: 'firstLetter', n: 1 });
    assert.equal(instance.state, 'completed', JSON.stringify(instance));
    assert.equal((await variablesOf(instance.id)).out, 'A');
    const other = await f.start('juelDecision', { decision: 'size', n: 2 });
    assert.equal((await variablesOf(other.id)).out, 'large');
  });

  test('decisionRef="first${part}" with decisionRefVersion="#{decisionVersion}" evaluates that version', async () => {
    const v1 = await f.start('pinnedDecision', { part: 'Letter', decisionVersion: 1, n: 1 });
    assert.equal(v1.state, 'completed', JSON.stringify(v1));
    assert.equal((await variablesOf(v1.id)).out, 'a');
    const v2 = await f.start('pinnedDecision', { part: 'Letter', decisionVersion: '2', n: 1 });
    assert.equal((await variablesOf(v2.id)).out, 'A');
    const bad = await f.start('pinnedDecision', { part: 'Letter', decisionVersion: 'two', n: 1 });
    assert.equal(
      (await onlyIncident(bad.id)).message,
      'decision version of \'pinnedDecide\': #{decisionVersion} gives a string "two", which is not a version number (a whole number of 1 or more)',
    );
  });

  test('a Zeebe decisionId "=decision" evaluates the decision it names', async () => {
    const instance = await f.start('feelDecision', { decision: 'size', n: 0 });
    assert.equal(instance.state, 'completed', JSON.stringify(instance));
    assert.deepEqual((await variablesOf(instance.id)).out, 'small');
  });

  test('a decision key that is not a text, or names no decision, is an incident; fixing and retrying evaluates it', async () => {
    const list = await f.start('juelDecision', { decision: ['size'], n: 1 });
    const incident = await onlyIncident(list.id);
    assert.equal(incident.activity_id, 'juelDecide');
    assert.equal(
      incident.message,
      'decision reference of \'juelDecide\': ${decision} gives a list ["size"], which is not a decision key (a text that is not empty)',
    );
    await fixAndRetry(list.id, { decision: 'firstLetter' });
    assert.equal((await f.instance(list.id)).state, 'completed');
    assert.equal((await variablesOf(list.id)).out, 'A');

    const unknown = await f.start('juelDecision', { decision: 'noSuchDecision', n: 1 });
    assert.match((await onlyIncident(unknown.id)).message, /No decision with key 'noSuchDecision'/);
    await fixAndRetry(unknown.id, { decision: 'size' });
    assert.equal((await variablesOf(unknown.id)).out, 'small');
    assert.deepEqual(await incidentsOf(unknown.id), []);
  });
});
