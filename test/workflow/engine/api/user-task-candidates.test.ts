import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

interface Task {
  id: string;
  process_instance_id: string;
  assignee: string | null;
  candidate_groups: string[];
  candidate_users: string[];
}

describe('user tasks: the list filtered by candidate groups and candidate users', () => {
  let f: EngineFixture;
  // Task ids by what their candidates are.
  const ids: Record<'sales' | 'support' | 'both' | 'ada' | 'none', string> = {} as never;

  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('task-candidates.bpmn')).statusCode, 201);
    const opened = async (groups: string[], users: string[]) => {
      const started = await f.start('taskCandidates', { groups, users });
      const [task] = await list(`process_instance_id=${started.id}`);
      assert.ok(task, 'the instance waits at its user task');
      return task;
    };
    ids.sales = (await opened(['sales'], ['bob@example.com'])).id;
    ids.support = (await opened(['support'], [])).id;
    ids.both = (await opened(['sales', 'support'], ['ada@example.com', 'bob@example.com'])).id;
    ids.ada = (await opened([], ['Ada@Example.com'])).id;
    ids.none = (await opened([], [])).id;
  });
  after(() => f?.close());

  test('each task carries the candidate groups and users its model gave it', async () => {
    const both = (await list(`candidate_user=ada@example.com`)).find((task) => task.id === ids.both);
    assert.deepEqual(both?.candidate_groups, ['sales', 'support']);
    assert.deepEqual(both?.candidate_users, ['ada@example.com', 'bob@example.com']);
    const details = await call(`/api/v1/tasks/${ids.ada}`);
    assert.equal(details.statusCode, 200, details.body);
    assert.deepEqual((details.json() as Task).candidate_users, ['Ada@Example.com']);
  });

  test('candidate_group selects tasks with any of the groups given, repeated or comma-separated', async () => {
    assert.deepEqual(await idsOf('candidate_group=sales'), [ids.sales, ids.both]);
    assert.deepEqual(await idsOf('candidate_group=support'), [ids.support, ids.both]);
    const any = [ids.sales, ids.support, ids.both];
    assert.deepEqual(await idsOf('candidate_group=sales&candidate_group=support'), any);
    assert.deepEqual(await idsOf('candidate_group=sales,%20support'), any);
    assert.deepEqual(await idsOf('candidate_group=Sales'), [], 'group names are exact');
    assert.deepEqual(await idsOf('candidate_group=nobody'), []);
  });

  test('candidate_user selects tasks naming that user, in any case', async () => {
    assert.deepEqual(await idsOf('candidate_user=ada@example.com'), [ids.both, ids.ada]);
    assert.deepEqual(await idsOf('candidate_user=BOB@example.com'), [ids.sales, ids.both]);
    assert.deepEqual(await idsOf('candidate_user=carol@example.com'), []);
    assert.deepEqual(
      await idsOf('candidate_user=bob@example.com&candidate_group=support'),
      [ids.both],
      'filters combine',
    );
  });

  test('the candidate filters keep assigned tasks; unassigned=true leaves them out', async () => {
    const claimed = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/tasks/${ids.both}/claim`,
      token: f.tokens.operator,
    });
    assert.equal(claimed.statusCode, 204, claimed.body);
    assert.deepEqual(await idsOf('candidate_group=sales'), [ids.sales, ids.both]);
    assert.deepEqual(await idsOf('candidate_group=sales&unassigned=true'), [ids.sales]);
    assert.deepEqual(await idsOf('candidate_user=ada@example.com&unassigned=true'), [ids.ada]);
  });

  test('a candidate filter naming nothing is a 400 with the error body', async () => {
    for (const query of ['candidate_group=', 'candidate_group=,%20,', 'candidate_user=']) {
      const response = await call(`/api/v1/tasks?org_id=${f.orgId}&${query}`);
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
      assert.equal((response.json() as { code: string }).code, 'U400', query);
    }
    const many = Array.from({ length: 101 }, (_, i) => `g${i}`).join(',');
    const tooMany = await call(`/api/v1/tasks?org_id=${f.orgId}&candidate_group=${many}`);
    assert.equal(tooMany.statusCode, 400, tooMany.body);
  });

  test('migration 0026 gives the tasks open before it the candidate users their instances kept', async () => {
    const pool = f.workflow.database.pool;
    await pool.query('ALTER TABLE user_tasks DROP COLUMN candidate_users');
    await pool.query(
      await readFile(
        new URL('../../../../migrations/workflow/0026_user_task_candidate_users.sql', import.meta.url),
        'utf8',
      ),
    );
    assert.deepEqual(await idsOf('candidate_user=bob@example.com'), [ids.sales, ids.both]);
    assert.deepEqual(
      (await list(`candidate_user=ada@example.com`)).map((task) => task.candidate_users),
      [['ada@example.com', 'bob@example.com'], ['Ada@Example.com']],
    );
    assert.deepEqual((await list('candidate_group=support')).at(0)?.candidate_users, []);
  });

  function call(url: string) {
    return f.workflow.request({ method: 'GET', url, token: f.tokens.reader });
  }

  async function list(query: string): Promise<Task[]> {
    const response = await call(`/api/v1/tasks?org_id=${f.orgId}&${query}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Task[];
  }

  async function idsOf(query: string): Promise<string[]> {
    return (await list(query)).map((task) => task.id);
  }
});
