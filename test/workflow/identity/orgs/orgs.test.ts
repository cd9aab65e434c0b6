import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestWorkflow, type TestWorkflow } from '../../../helpers/workflow.js';

interface Org {
  id: string;
  name: string;
  slug: string;
}

describe('organisations, users, memberships and process groups', () => {
  let workflow: TestWorkflow;
  let admin: string;
  let acme: Org;
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
    assert.equal(created.statusCode, 201);
    acme = created.json() as Org;
  });
  after(() => workflow.close());

  const userWithRoles = async (email: string, roles: string[]) => {
    const created = await workflow.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      body: { email, password: 'a long password' },
    });
    assert.equal(created.statusCode, 201);
    const user = created.json() as { id: string };
    if (roles.length > 0) {
      const granted = await workflow.request({
        method: 'PUT',
        url: `/api/v1/orgs/${acme.id}/members/${user.id}`,
        token: admin,
        body: { roles },
      });
      assert.equal(granted.statusCode, 200);
    }
    return { id: user.id, token: await workflow.login(email, 'a long password') };
  };

  test('a PlatformAdmin creates organisations; slugs are unique and validated', async () => {
    assert.deepEqual(Object.keys(acme).sort(), ['id', 'name', 'slug']);
    assert.equal(acme.slug, 'acme');
    const duplicate = await workflow.request({
      method: 'POST',
      url: '/api/v1/orgs',
      token: admin,
      body: { name: 'Other', slug: 'acme' },
    });
    assert.equal(duplicate.statusCode, 409);
    assert.equal((duplicate.json() as { code: string }).code, 'U409');
    const badSlug = await workflow.request({
      method: 'POST',
      url: '/api/v1/orgs',
      token: admin,
      body: { name: 'X', slug: 'Not A Slug' },
    });
    assert.equal(badSlug.statusCode, 400);
  });

  test('only a PlatformAdmin creates organisations', async () => {
    const orgAdmin = await userWithRoles('orgadmin1@example.com', ['OrgAdmin']);
    const response = await workflow.request({
      method: 'POST',
      url: '/api/v1/orgs',
      token: orgAdmin.token,
      body: { name: 'Mine', slug: 'mine' },
    });
    assert.equal(response.statusCode, 403);
    assert.equal((response.json() as { code: string }).code, 'U403');
  });

  test("GET /orgs lists the caller's organisations, and every one for a PlatformAdmin", async () => {
    await workflow.request({
      method: 'POST',
      url: '/api/v1/orgs',
      token: admin,
      body: { name: 'Zeta', slug: 'zeta' },
    });
    const reader = await userWithRoles('reader1@example.com', ['Reader']);
    const mine = (
      await workflow.request({ method: 'GET', url: '/api/v1/orgs', token: reader.token })
    ).json() as Org[];
    assert.deepEqual(mine, [acme]);
    const all = (
      await workflow.request({ method: 'GET', url: '/api/v1/orgs', token: admin })
    ).json() as Org[];
    assert.ok(all.length >= 2 && all.some((org) => org.slug === 'zeta'));
    const nobody = await userWithRoles('nobody1@example.com', []);
    assert.deepEqual(
      (await workflow.request({ method: 'GET', url: '/api/v1/orgs', token: nobody.token })).json(),
      [],
    );
  });

  test('users: emails are unique regardless of case; internal users need a password, external ones must not have one', async () => {
    const first = await workflow.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      body: { email: 'Case@Example.com', password: 'password one' },
    });
    assert.equal(first.statusCode, 201);
    assert.deepEqual(Object.keys(first.json() as object).sort(), ['auth_provider', 'email', 'id']);
    const again = await workflow.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      body: { email: 'case@example.com', password: 'password two' },
    });
    assert.equal(again.statusCode, 409);
    const noPassword = await workflow.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      body: { email: 'np@example.com' },
    });
    assert.equal(noPassword.statusCode, 400);
    const external = await workflow.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      body: { email: 'sso@example.com', auth_provider: 'external' },
    });
    assert.equal(external.statusCode, 201);
    assert.equal((external.json() as { auth_provider: string }).auth_provider, 'external');
    const externalWithPassword = await workflow.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      body: { email: 'sso2@example.com', auth_provider: 'external', password: 'not allowed here' },
    });
    assert.equal(externalWithPassword.statusCode, 400);
    const badEmail = await workflow.request({
      method: 'POST',
      url: '/api/v1/users',
      token: admin,
      body: { email: 'not-an-email', password: 'password one' },
    });
    assert.equal(badEmail.statusCode, 400);
  });

  test('an OrgAdmin may create users and manage members of their org only; others get 403', async () => {
    const orgAdmin = await userWithRoles('orgadmin2@example.com', ['OrgAdmin']);
    const developer = await userWithRoles('dev2@example.com', ['Developer']);
    const created = await workflow.request({
      method: 'POST',
      url: '/api/v1/users',
      token: orgAdmin.token,
      body: { email: 'hire@example.com', password: 'new hire password' },
    });
    assert.equal(created.statusCode, 201);
    const hire = created.json() as { id: string };
    const granted = await workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/${acme.id}/members/${hire.id}`,
      token: orgAdmin.token,
      body: { roles: ['Operator', 'Reader'] },
    });
    assert.equal(granted.statusCode, 200);
    assert.deepEqual(granted.json(), {
      org_id: acme.id,
      user_id: hire.id,
      email: 'hire@example.com',
      roles: ['Operator', 'Reader'],
    });
    const byDeveloper = await workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/${acme.id}/members/${hire.id}`,
      token: developer.token,
      body: { roles: ['OrgAdmin'] },
    });
    assert.equal(byDeveloper.statusCode, 403);
    const developerCreatesUser = await workflow.request({
      method: 'POST',
      url: '/api/v1/users',
      token: developer.token,
      body: { email: 'x@example.com', password: 'password one' },
    });
    assert.equal(developerCreatesUser.statusCode, 403);
    const zeta = (
      (await workflow.request({ method: 'GET', url: '/api/v1/orgs', token: admin })).json() as Org[]
    ).find((org) => org.slug === 'zeta');
    assert.ok(zeta);
    const otherOrg = await workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/${zeta.id}/members/${hire.id}`,
      token: orgAdmin.token,
      body: { roles: ['Reader'] },
    });
    assert.equal(otherOrg.statusCode, 403);
    const members = await workflow.request({
      method: 'GET',
      url: `/api/v1/orgs/${acme.id}/members`,
      token: orgAdmin.token,
    });
    assert.equal(members.statusCode, 200);
    assert.ok((members.json() as { email: string }[]).some((member) => member.email === 'hire@example.com'));
    const removed = await workflow.request({
      method: 'DELETE',
      url: `/api/v1/orgs/${acme.id}/members/${hire.id}`,
      token: orgAdmin.token,
    });
    assert.equal(removed.statusCode, 204);
    const removedAgain = await workflow.request({
      method: 'DELETE',
      url: `/api/v1/orgs/${acme.id}/members/${hire.id}`,
      token: orgAdmin.token,
    });
    assert.equal(removedAgain.statusCode, 404);
  });

  test('memberships: roles must be known and non-empty; unknown users and orgs are 404', async () => {
    const user = await userWithRoles('member3@example.com', []);
    for (const roles of [[], ['Emperor'], 'OrgAdmin']) {
      const response = await workflow.request({
        method: 'PUT',
        url: `/api/v1/orgs/${acme.id}/members/${user.id}`,
        token: admin,
        body: { roles },
      });
      assert.equal(response.statusCode, 400, JSON.stringify(roles));
    }
    const unknownUser = await workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/${acme.id}/members/00000000-0000-4000-8000-000000000000`,
      token: admin,
      body: { roles: ['Reader'] },
    });
    assert.equal(unknownUser.statusCode, 404);
    const unknownOrg = await workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/00000000-0000-4000-8000-000000000000/members/${user.id}`,
      token: admin,
      body: { roles: ['Reader'] },
    });
    assert.equal(unknownOrg.statusCode, 404);
  });

  test('process groups: OrgAdmin or Developer create them, members list them, names are unique per org', async () => {
    const developer = await userWithRoles('dev4@example.com', ['Developer']);
    const operator = await userWithRoles('op4@example.com', ['Operator']);
    const outsider = await userWithRoles('out4@example.com', []);
    const created = await workflow.request({
      method: 'POST',
      url: `/api/v1/orgs/${acme.id}/process-groups`,
      token: developer.token,
      body: { name: 'Billing' },
    });
    assert.equal(created.statusCode, 201);
    const group = created.json() as { id: string; name: string };
    assert.deepEqual(Object.keys(group).sort(), ['id', 'name']);
    const duplicate = await workflow.request({
      method: 'POST',
      url: `/api/v1/orgs/${acme.id}/process-groups`,
      token: admin,
      body: { name: 'Billing' },
    });
    assert.equal(duplicate.statusCode, 409);
    const byOperator = await workflow.request({
      method: 'POST',
      url: `/api/v1/orgs/${acme.id}/process-groups`,
      token: operator.token,
      body: { name: 'Ops' },
    });
    assert.equal(byOperator.statusCode, 403);
    const listed = await workflow.request({
      method: 'GET',
      url: `/api/v1/orgs/${acme.id}/process-groups`,
      token: operator.token,
    });
    assert.deepEqual(listed.json(), [group]);
    const byOutsider = await workflow.request({
      method: 'GET',
      url: `/api/v1/orgs/${acme.id}/process-groups`,
      token: outsider.token,
    });
    assert.equal(byOutsider.statusCode, 403);
  });
});
