import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basic, createCamundaFixture, type CamundaFixture } from './camunda-fixture.js';
import {
  fixtureFile,
  modelerDeploymentRequest,
  type ModelerDeployment,
  type ModelerFile,
} from './modeler-deployment.js';

interface DeploymentWithDefinitions {
  id: string;
  name: string | null;
  source: null;
  deploymentTime: string;
  tenantId: string;
  links: { method: string; href: string; rel: string }[];
  deployedProcessDefinitions: Record<string, Record<string, unknown>> | null;
  deployedDecisionDefinitions: Record<string, Record<string, unknown>> | null;
  deployedCaseDefinitions: null;
  deployedDecisionRequirementsDefinitions: null;
}

const camundaDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;

/** Adds a user with one role in acme; returns its Basic credentials. */
async function member(fixture: CamundaFixture, name: string, role: string): Promise<string> {
  const email = `${name}@example.com`;
  const password = `${name} password`;
  const userId = await fixture.workflow.createUser(email, password);
  const response = await fixture.workflow.request({
    method: 'PUT',
    url: `/api/v1/orgs/${fixture.orgs.acme}/members/${userId}`,
    token: fixture.admin,
    body: { roles: [role] },
  });
  assert.equal(response.statusCode < 300, true, response.body);
  return basic(email, password);
}

describe('/engine-rest/deployment', () => {
  let fixture: CamundaFixture;
  let developer: string;
  let charge: ModelerFile;
  let review: ModelerFile;
  let discount: ModelerFile;
  before(async () => {
    fixture = await createCamundaFixture();
    developer = await member(fixture, 'developer', 'Developer');
    [charge, review, discount] = await Promise.all([
      fixtureFile('charge.bpmn'),
      fixtureFile('review.bpmn'),
      fixtureFile('discount.dmn'),
    ]);
  });
  after(() => fixture.close());

  const deploy = async (diagram: ModelerFile, deployment: ModelerDeployment, authorization = developer) => {
    const { payload, headers } = await modelerDeploymentRequest(diagram, deployment);
    return fixture.camunda({
      method: 'POST',
      url: '/engine-rest/deployment/create',
      body: payload,
      headers,
      authorization,
    });
  };
  const get = (path: string, authorization = developer) =>
    fixture.camunda({ method: 'GET', url: `/engine-rest${path}`, authorization });
  const assertCamundaError = (
    response: { statusCode: number; json(): unknown },
    status: number,
    type: string,
    message?: RegExp,
  ) => {
    assert.equal(response.statusCode, status, JSON.stringify(response.json()));
    const body = response.json() as { type: string; message: string };
    assert.equal(body.type, type);
    if (message) assert.match(body.message, message);
  };

  test('a Modeler deployment of a BPMN and a DMN file creates both in one deployment', async () => {
    const response = await deploy(review, {
      name: 'orders',
      attachments: [discount, { name: 'review.form', contents: '{"id": "review-form", "components": []}' }],
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/json');
    const body = response.json() as DeploymentWithDefinitions;
    assert.equal(body.name, 'orders');
    assert.equal(body.source, null);
    assert.equal(body.tenantId, 'acme');
    assert.match(body.deploymentTime, camundaDate);
    assert.deepEqual(body.links, [
      { method: 'GET', href: `http://localhost:80/engine-rest/deployment/${body.id}`, rel: 'self' },
    ]);
    const processes = Object.values(body.deployedProcessDefinitions ?? {});
    assert.equal(processes.length, 1);
    assert.deepEqual(
      { ...processes[0], id: undefined },
      {
        id: undefined,
        key: 'review-order',
        category: null,
        description: null,
        name: 'Review order',
        version: 1,
        resource: 'review.bpmn',
        deploymentId: body.id,
        diagram: null,
        suspended: false,
        tenantId: 'acme',
        versionTag: null,
        historyTimeToLive: null,
        startableInTasklist: true,
      },
    );
    assert.equal(Object.keys(body.deployedProcessDefinitions ?? {})[0], processes[0]?.id);
    const decisions = Object.values(body.deployedDecisionDefinitions ?? {});
    assert.equal(decisions.length, 1);
    assert.equal(decisions[0]?.key, 'discount');
    assert.equal(decisions[0]?.resource, 'discount.dmn');
    assert.equal(decisions[0]?.deploymentId, body.id);
    assert.equal(body.deployedCaseDefinitions, null);
    assert.equal(body.deployedDecisionRequirementsDefinitions, null);

    // The deployment is listed, and the group named after it exists in weft.
    const listed = (await get(`/deployment?id=${body.id}`)).json() as { id: string; name: string }[];
    assert.deepEqual(
      listed.map((deployment) => [deployment.id, deployment.name]),
      [[body.id, 'orders']],
    );
    const one = await get(`/deployment/${body.id}`);
    assert.equal(one.statusCode, 200);
    assert.equal((one.json() as { tenantId: string }).tenantId, 'acme');
    const groups = await fixture.workflow.request({
      method: 'GET',
      url: `/api/v1/orgs/${fixture.orgs.acme}/process-groups`,
      token: fixture.admin,
    });
    assert.ok((groups.json() as { name: string }[]).some((group) => group.name === 'orders'));
  });

  test('an unchanged resource gets no new version: only the changed ones are listed', async () => {
    const changedOnly = { 'deploy-changed-only': 'true' };
    const first = await deploy(charge, { name: 'charging', attachments: [review], extraFields: changedOnly });
    assert.equal(first.statusCode, 200, first.body);
    const again = await deploy(charge, { name: 'charging', attachments: [review], extraFields: changedOnly });
    assert.equal(again.statusCode, 200, again.body);
    const body = again.json() as DeploymentWithDefinitions;
    assert.equal(body.deployedProcessDefinitions, null);
    assert.equal(body.deployedDecisionDefinitions, null);
    assert.equal(
      body.id,
      (first.json() as DeploymentWithDefinitions).id,
      'the existing deployment is answered',
    );

    const changed = {
      name: 'charge.bpmn',
      contents: charge.contents.replace('Charge card"', 'Charge the card"'),
    };
    const third = await deploy(changed, {
      name: 'charging',
      attachments: [review],
      extraFields: changedOnly,
    });
    const processes = Object.values(
      (third.json() as DeploymentWithDefinitions).deployedProcessDefinitions ?? {},
    );
    assert.deepEqual(
      processes.map((definition) => [definition.key, definition.name]),
      [['charge-card', 'Charge the card']],
    );
  });

  test('tenant-id picks the org; a caller in several orgs must name one', async () => {
    const admin = `Bearer ${fixture.admin}`;
    const inBeta = await deploy(review, { name: 'beta-orders', tenantId: 'beta' }, admin);
    assert.equal(inBeta.statusCode, 200, inBeta.body);
    assert.equal((inBeta.json() as DeploymentWithDefinitions).tenantId, 'beta');
    const unnamed = await deploy(review, { name: 'beta-orders' }, admin);
    assertCamundaError(unnamed, 400, 'InvalidRequestException', /tenant-id/);
    const elsewhere = await deploy(review, { name: 'x', tenantId: 'beta' });
    assertCamundaError(elsewhere, 400, 'InvalidRequestException', /Unknown tenant id 'beta'/);
  });

  test('a broken model answers a ParseException with problems per resource, and nothing is deployed', async () => {
    const broken = await fixtureFile('broken.bpmn');
    const before = (await get('/deployment/count')).json() as { count: number };
    const response = await deploy(review, { name: 'broken', attachments: [broken] });
    assert.equal(response.statusCode, 400);
    const body = response.json() as {
      type: string;
      message: string;
      details: Record<string, { errors: Record<string, unknown>[]; warnings: unknown[] }>;
    };
    assert.equal(body.type, 'ParseException');
    assert.match(body.message, /^ENGINE-09005 Could not parse BPMN process\./);
    assert.deepEqual(Object.keys(body.details), ['broken.bpmn']);
    const [problem] = body.details['broken.bpmn']?.errors ?? [];
    assert.equal(problem?.mainElementId, 'f2');
    assert.deepEqual(problem?.elementIds, ['f2']);
    assert.equal(problem?.line, 8);
    assert.equal(problem?.column, 5);
    assert.match(String(problem?.message), /FEEL/);
    assert.deepEqual(body.details['broken.bpmn']?.warnings, []);
    assert.deepEqual((await get('/deployment/count')).json(), before, 'nothing is half-deployed');
  });

  test('two files defining the same key, and a broken DMN, are problems of their files', async () => {
    const copy = { name: 'copy.bpmn', contents: review.contents.replace('Review order', 'Copy') };
    const twice = await deploy(review, { name: 'twice', attachments: [copy] });
    assert.equal(twice.statusCode, 400);
    const body = twice.json() as { type: string; details: Record<string, { errors: { message: string }[] }> };
    assert.equal(body.type, 'ParseException');
    assert.deepEqual(Object.keys(body.details), ['copy.bpmn']);
    assert.match(
      body.details['copy.bpmn']?.errors[0]?.message ?? '',
      /review-order.*also defined in review\.bpmn/,
    );
    const dmn = await deploy(review, {
      name: 'bad-dmn',
      attachments: [{ name: 'bad.dmn', contents: '<definitions/>' }],
    });
    assert.equal(dmn.statusCode, 400);
    assert.deepEqual(Object.keys((dmn.json() as { details: object }).details), ['bad.dmn']);
  });

  test('a Reader cannot deploy; a Worker cannot either', async () => {
    const reader = basic(fixture.users.reader.email, fixture.users.reader.password);
    assertCamundaError(await deploy(review, { name: 'r' }, reader), 403, 'AuthorizationException');
    const worker = basic(fixture.users.worker.email, fixture.users.worker.password);
    assertCamundaError(await deploy(review, { name: 'w' }, worker), 403, 'AuthorizationException');
  });

  test('malformed, empty, oversized and non-multipart bodies answer Camunda-shaped 4xx', async () => {
    const url = '/engine-rest/deployment/create';
    const truncated = await modelerDeploymentRequest(review, { name: 'cut' });
    const cut = await fixture.camunda({
      method: 'POST',
      url,
      body: truncated.payload.subarray(0, truncated.payload.length - 60),
      headers: truncated.headers,
      authorization: developer,
    });
    assertCamundaError(cut, 400, 'InvalidRequestException', /multipart/);
    const json = await fixture.camunda({ method: 'POST', url, body: { a: 1 }, authorization: developer });
    assertCamundaError(json, 415, 'RestException', /multipart/);
    const badForm = await deploy({ name: 'notes.form', contents: '{}' }, { name: 'forms only' });
    assertCamundaError(
      badForm,
      400,
      'ParseException',
      /notes\.form.*has no string 'id'|has no string 'id'.*notes\.form/s,
    );
    const text = await deploy({ name: 'readme.txt', contents: 'hello' }, { name: 'text' });
    assertCamundaError(text, 400, 'InvalidRequestException', /readme\.txt/);
    const huge = { name: 'huge.bpmn', contents: `${review.contents}<!--${'x'.repeat(5 * 1024 * 1024)}-->` };
    assertCamundaError(await deploy(huge, { name: 'huge' }), 413, 'RestException', /larger than/);
    const badFlag = await deploy(review, { name: 'flag', extraFields: { 'deploy-changed-only': 'maybe' } });
    assertCamundaError(badFlag, 400, 'InvalidRequestException', /deploy-changed-only/);
    const future = await deploy(review, {
      name: 'later',
      extraFields: { 'deployment-activation-time': '2999-01-01T00:00:00.000+0000' },
    });
    assertCamundaError(future, 400, 'InvalidRequestException', /deployment-activation-time/);
  });

  test('GET /deployment filters, sorts and pages; other orgs are invisible', async () => {
    const admin = `Bearer ${fixture.admin}`;
    await deploy(review, { name: 'list-beta', tenantId: 'beta' }, admin);
    const all = (await get('/deployment?sortBy=deploymentTime&sortOrder=asc')).json() as {
      name: string | null;
      tenantId: string;
    }[];
    assert.ok(all.length >= 2);
    assert.ok(
      all.every((deployment) => deployment.tenantId === 'acme'),
      'beta is not the developer’s',
    );
    const named = (await get('/deployment?nameLike=chargi%25')).json() as { name: string }[];
    assert.ok(named.length >= 1 && named.every((deployment) => deployment.name === 'charging'));
    const page = (
      await get('/deployment?sortBy=name&sortOrder=desc&firstResult=1&maxResults=1')
    ).json() as unknown[];
    assert.equal(page.length, 1);
    assert.deepEqual((await get('/deployment?source=Camunda%20Modeler')).json(), []);
    const betaOnly = (await get('/deployment?tenantIdIn=beta', admin)).json() as { tenantId: string }[];
    assert.ok(betaOnly.length >= 1 && betaOnly.every((deployment) => deployment.tenantId === 'beta'));
    assertCamundaError(
      await get('/deployment?tenantIdIn=beta'),
      400,
      'InvalidRequestException',
      /Unknown tenant/,
    );
    assertCamundaError(
      await get('/deployment?unknownParam=1'),
      400,
      'InvalidRequestException',
      /unknownParam/,
    );
    assertCamundaError(await get('/deployment?sortBy=name'), 400, 'InvalidRequestException', /sortOrder/);
    assertCamundaError(await get('/deployment/not-an-id'), 404, 'InvalidRequestException');
    // Modeler's connection check.
    const check = await get('/deployment?maxResults=0');
    assert.equal(check.statusCode, 200);
    assert.deepEqual(check.json(), []);
  });
});
