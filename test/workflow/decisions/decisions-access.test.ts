import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestWorkflow, type TestWorkflow } from '../../helpers/workflow.js';
import { definitions, inputData, literalDecision, tableXml } from '../../lib/dmn/dmn-fixtures.js';

interface ErrorBody {
  code: string;
  message: string;
  details?: { errors?: { element_id: string | null; message: string }[] } & Record<string, unknown>;
}

const decisionFile = (key: string, text = '1') =>
  definitions(literalDecision(key, key, text, { inputs: [] }));

describe('decisions: roles, headers and hostile input', () => {
  let workflow: TestWorkflow;
  let admin: string;
  let org: string;
  const tokens: Record<string, string> = {};

  before(async () => {
    workflow = await startTestWorkflow();
    await workflow.createUser('root@example.com', 'root password', { platformAdmin: true });
    admin = await workflow.login('root@example.com', 'root password');
    const created = await workflow.request({
      method: 'POST',
      url: '/api/v1/orgs',
      token: admin,
      body: { name: 'Acme', slug: 'acme' },
    });
    org = (created.json() as { id: string }).id;
    for (const role of ['OrgAdmin', 'Developer', 'Operator', 'Reader', 'Worker', 'none']) {
      const email = `${role.toLowerCase()}@example.com`;
      const user = await workflow.createUser(email, 'a long password');
      if (role !== 'none') {
        const granted = await workflow.request({
          method: 'PUT',
          url: `/api/v1/orgs/${org}/members/${user}`,
          token: admin,
          body: { roles: [role] },
        });
        assert.equal(granted.statusCode, 200);
      }
      tokens[role] = await workflow.login(email, 'a long password');
    }
    const seeded = await deploy(admin, decisionFile('seeded'));
    assert.equal(seeded.statusCode, 201, seeded.body);
  });
  after(() => workflow.close());

  function deploy(token: string, xml: string, headers: Record<string, string> = { 'x-org-id': org }) {
    return workflow.request({ method: 'POST', url: '/api/v1/decisions', token, headers, body: { xml } });
  }

  const actions = {
    deploy: (token: string, headers: Record<string, string>) =>
      deploy(token, decisionFile(`k${Math.random().toString(36).slice(2, 8)}`), headers),
    list: (token: string, headers: Record<string, string>) =>
      workflow.request({ method: 'GET', url: '/api/v1/decisions', token, headers }),
    rename: (token: string, headers: Record<string, string>) =>
      workflow.request({
        method: 'PATCH',
        url: '/api/v1/decisions/by-key',
        token,
        headers,
        body: { decision_key: 'seeded', name: 'Renamed' },
      }),
    evaluate: (token: string, headers: Record<string, string>) =>
      workflow.request({
        method: 'POST',
        url: '/api/v1/decisions/seeded/evaluate',
        token,
        headers,
        body: { variables: {} },
      }),
  };
  const ok = { deploy: 201, list: 200, rename: 204, evaluate: 200 };

  // Who may do what: OrgAdmin everything; Developer deploys and renames; Developer and Operator
  // evaluate; every role lists; a non-member nothing.
  const allowed: Record<string, (keyof typeof actions)[]> = {
    OrgAdmin: ['deploy', 'list', 'rename', 'evaluate'],
    Developer: ['deploy', 'list', 'rename', 'evaluate'],
    Operator: ['list', 'evaluate'],
    Reader: ['list'],
    Worker: ['list'],
    none: [],
  };
  for (const [role, permitted] of Object.entries(allowed)) {
    test(`role ${role}: ${permitted.join(', ') || 'nothing'}`, async () => {
      const token = tokens[role] ?? '';
      for (const [action, run] of Object.entries(actions) as [keyof typeof actions, typeof actions.list][]) {
        const response = await run(token, { 'x-org-id': org });
        if (permitted.includes(action)) {
          assert.equal(response.statusCode, ok[action], `${role} ${action}: ${response.body}`);
        } else {
          assert.equal(response.statusCode, 403, `${role} ${action}: ${response.body}`);
          assert.equal((response.json() as ErrorBody).code, 'U403');
        }
      }
    });
  }

  test('x-org-id is a UUID in any case', async () => {
    for (const [action, run] of Object.entries(actions)) {
      const response = await run(tokens.Developer ?? '', { 'x-org-id': org.toUpperCase() });
      assert.equal(response.statusCode, ok[action as keyof typeof ok], `${action}: ${response.body}`);
    }
  });

  test('x-org-id missing or not a UUID is 400; no token is 401; an unknown org is 404 for a PlatformAdmin', async () => {
    for (const [action, run] of Object.entries(actions)) {
      const badHeaders: Record<string, string>[] = [{}, { 'x-org-id': 'acme' }, { 'x-org-id': `${org}x` }];
      for (const headers of badHeaders) {
        const response = await run(tokens.Developer ?? '', headers);
        assert.equal(response.statusCode, 400, `${action} ${JSON.stringify(headers)}: ${response.body}`);
        assert.equal((response.json() as ErrorBody).code, 'U400');
      }
      const anonymous = await run('', { 'x-org-id': org });
      assert.equal(anonymous.statusCode, 401, action);
      assert.deepEqual(anonymous.json(), { code: 'U401', message: 'Unauthenticated' });
      const unknownOrg = await run(admin, { 'x-org-id': '00000000-0000-4000-8000-000000000000' });
      assert.equal(unknownOrg.statusCode, 404, `${action}: ${unknownOrg.body}`);
      assert.equal((unknownOrg.json() as ErrorBody).code, 'U404');
    }
  });

  const deploymentCount = async () => {
    const { rows } = await workflow.database.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM decision_deployments',
    );
    return Number(rows[0]?.n);
  };

  /** Deploys `xml` and expects 400 U400 with problems in details.errors; returns them. */
  const refused = async (xml: string) => {
    const before = await deploymentCount();
    const response = await deploy(admin, xml);
    assert.equal(response.statusCode, 400, response.body);
    const body = response.json() as ErrorBody;
    assert.equal(body.code, 'U400');
    const errors = body.details?.errors ?? [];
    assert.ok(errors.length > 0, 'details.errors lists the problems');
    for (const error of errors) assert.deepEqual(Object.keys(error).sort(), ['element_id', 'message']);
    assert.equal(await deploymentCount(), before, 'nothing is stored');
    return errors;
  };

  test('text that is not DMN is refused with its problem', async () => {
    for (const xml of ['not xml at all', '<a/>', '<definitions', '{"json": true}', '   ']) {
      await refused(xml);
    }
    const empty = await deploy(admin, '');
    assert.equal(empty.statusCode, 400);
  });

  test('a DOCTYPE (entity expansion bomb, external entity) is refused before parsing', async () => {
    const bomb = `<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="x" namespace="x">
  <decision id="bomb" name="Bomb"><literalExpression><text>"&lol9;"</text></literalExpression></decision>
</definitions>`;
    const errors = await refused(bomb);
    assert.match(errors[0]?.message ?? '', /DOCTYPE/);
    const external = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>${decisionFile('xxe', '"&x;"').replace(/^<\?xml[^>]*>/, '')}`;
    assert.match((await refused(external))[0]?.message ?? '', /DOCTYPE/);
  });

  test('a DMN with several problems lists every one of them', async () => {
    const xml = definitions(`
      ${inputData('in_a', 'a', 'number')}
      <decision id="bad_policy" name="Bad policy">${tableXml(
        { hitPolicy: 'SOMETIMES', inputs: ['a'], outputs: [{ name: 'r' }], rules: [[['1'], ['2']]] },
        'policy_table',
      )}</decision>
      <decision id="bad_feel" name="Bad FEEL"><literalExpression><text>1 +* 2</text></literalExpression></decision>
      <decision id="bad_ref" name="Bad reference">
        <informationRequirement><requiredInput href="#no_such_input"/></informationRequirement>
        <literalExpression><text>1</text></literalExpression>
      </decision>`);
    const errors = await refused(xml);
    const text = JSON.stringify(errors);
    assert.ok(errors.length >= 3, text);
    assert.ok(
      errors.some((e) => /hit policy 'SOMETIMES'/.test(e.message)),
      text,
    );
    assert.ok(
      errors.some((e) => e.element_id === 'bad_feel' || /1 \+\* 2/.test(e.message)),
      text,
    );
    assert.ok(
      errors.some((e) => /no_such_input/.test(`${e.element_id ?? ''} ${e.message}`)),
      text,
    );
  });

  test('a file without decisions, or with a decision id too long for a key, is refused', async () => {
    const none = await refused(definitions(inputData('in_a', 'a')));
    assert.match(none[0]?.message ?? '', /no decisions/);
    const long = await refused(decisionFile(`k${'x'.repeat(100)}`));
    assert.match(long[0]?.message ?? '', /longer than 100 characters/);
    const longest = await deploy(admin, decisionFile(`k${'x'.repeat(99)}`));
    assert.equal(longest.statusCode, 201, longest.body);
    const evaluated = await workflow.request({
      method: 'POST',
      url: `/api/v1/decisions/k${'x'.repeat(99)}/evaluate`,
      token: admin,
      headers: { 'x-org-id': org },
      body: { variables: {} },
    });
    assert.equal(evaluated.statusCode, 200, evaluated.body);
  });

  test('a body over the limit is 413', async () => {
    const xml = decisionFile('huge').replace(
      '</definitions>',
      `<!--${'x'.repeat(10 * 1024 * 1024)}--></definitions>`,
    );
    const response = await deploy(admin, xml);
    assert.equal(response.statusCode, 413);
    assert.equal((response.json() as ErrorBody).code, 'U413');
  });

  test('malformed evaluation requests are 400, never 500', async () => {
    const developer = tokens.Developer ?? '';
    // Written as text: the test's own JSON.stringify would overflow the stack on the deeper one.
    const nested = (depth: number) => `{"variables":{"deep":${'{"n":'.repeat(depth)}1${'}'.repeat(depth)}}}`;
    const bodies: unknown[] = [
      {},
      { variables: 'x' },
      { variables: [] },
      { variables: null },
      { variables: {}, version: 0 },
      { variables: {}, version: 1.5 },
      { variables: {}, version: '1' },
      { variables: {}, extra: true },
      nested(64),
      nested(200_000),
    ];
    for (const body of bodies) {
      const response = await workflow.request({
        method: 'POST',
        url: '/api/v1/decisions/seeded/evaluate',
        token: developer,
        headers: { 'x-org-id': org, 'content-type': 'application/json' },
        body,
      });
      assert.equal(
        response.statusCode,
        400,
        `${(typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 80)}: ${response.body}`,
      );
      assert.equal((response.json() as ErrorBody).code, 'U400');
    }
    const longKey = await workflow.request({
      method: 'POST',
      url: `/api/v1/decisions/${'k'.repeat(300)}/evaluate`,
      token: developer,
      headers: { 'x-org-id': org },
      body: { variables: {} },
    });
    // Refused by the route's schema (keys are at most 100 characters), with the workflow error body.
    assert.equal(longKey.statusCode, 400, longKey.body);
    assert.equal((longKey.json() as ErrorBody).code, 'U400');
    const oddKey = await workflow.request({
      method: 'POST',
      url: `/api/v1/decisions/${encodeURIComponent("'; DROP TABLE decision_keys; --")}/evaluate`,
      token: developer,
      headers: { 'x-org-id': org },
      body: { variables: {} },
    });
    assert.equal(oddKey.statusCode, 404);
  });

  test('the OpenAPI document describes the decision endpoints', async () => {
    const response = await workflow.request({ method: 'GET', url: '/api/v1/openapi.json', token: admin });
    const paths = (response.json() as { paths: Record<string, Record<string, unknown>> }).paths;
    assert.ok(paths['/api/v1/decisions']?.post);
    assert.ok(paths['/api/v1/decisions']?.get);
    assert.ok(paths['/api/v1/decisions/by-key']?.patch);
    assert.ok(paths['/api/v1/decisions/{decision_key}/evaluate']?.post);
  });
});
