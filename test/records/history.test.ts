import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EventSource } from 'eventsource';
import { ordersPath, purchaseOrder, startRecordsApp, type RecordsTestApp } from './support/records-app.js';

interface Event {
  event_id: number;
  timestamp: string;
  actor: string;
  operation: string;
  old_value: Record<string, unknown> | null;
  new_value: Record<string, unknown> | null;
  reason?: string;
}
type Data<T> = { data: T };

describe('records time machine', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp();
  });
  after(() => app.close());

  const create = async (overrides: Record<string, unknown> = {}) => {
    const response = await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder(overrides) });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<Data<Record<string, unknown> & { id: string; version: number }>>().data;
  };
  const patch = async (id: string, version: number, body: Record<string, unknown>) => {
    const response = await app.call('PATCH', `/api/${ordersPath}/${id}`, { body: { version, ...body } });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<Data<Record<string, unknown> & { version: number; updated_at: string }>>().data;
  };
  const history = async (id: string) => {
    const response = await app.call('GET', `/api/${ordersPath}/${id}/history`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<Data<Event[]>>().data;
  };
  const at = (id: string, instant: string) =>
    app.call('GET', `/api/${ordersPath}/${id}/history?at=${encodeURIComponent(instant)}`);
  const shift = (instant: string, microseconds: number) => {
    // Timestamps carry microseconds; move by whole microseconds without a Date's millisecond rounding.
    const [seconds, fraction] = instant.slice(0, -1).split('.');
    const micros = Number(fraction) + microseconds;
    assert.ok(micros >= 0 && micros < 1_000_000, 'test instants stay inside one second');
    return `${seconds}.${String(micros).padStart(6, '0')}Z`;
  };

  test('every operation writes a history event: CREATE, UPDATE, DELETE, RESTORE', async () => {
    const record = await create({ notes: 'first' });
    const changed = await patch(record.id, 1, { notes: 'second', amount: 10 });
    const deleted = await app.call('DELETE', `/api/${ordersPath}/${record.id}`);
    assert.equal(deleted.statusCode, 204);
    const restore = await app.call('POST', `/api/${ordersPath}/${record.id}/restore`, {
      body: { at: changed.updated_at, reason: 'deleted by mistake' },
      actor: 'bob',
    });
    assert.equal(restore.statusCode, 201, restore.body);
    const events = await history(record.id);
    assert.deepEqual(
      events.map((event) => event.operation),
      ['CREATE', 'UPDATE', 'DELETE', 'RESTORE'],
    );
    const [created, updated, removed, restored] = events as [Event, Event, Event, Event];
    assert.ok(events.every((event, index) => index === 0 || event.event_id > events[index - 1]!.event_id));
    assert.equal(created.old_value, null);
    assert.equal(created.new_value?.notes, 'first');
    assert.equal(created.new_value?.id, record.id);
    assert.deepEqual(updated.old_value, { notes: 'first', amount: 1250.5 });
    assert.deepEqual(updated.new_value, { notes: 'second', amount: 10 });
    assert.equal(updated.actor, 'alice');
    assert.deepEqual(removed.old_value, { deleted_at: null });
    assert.match(String(removed.new_value?.deleted_at), /Z$/);
    assert.equal(restored.actor, 'bob');
    assert.equal(restored.reason, 'deleted by mistake');
    assert.deepEqual(restored.new_value, { deleted_at: null });
    const live = await app.call('GET', `/api/${ordersPath}/${record.id}`);
    assert.equal(live.statusCode, 200, 'restoring a soft-deleted record brings it back');
    assert.equal(live.json<Data<{ version: number; notes: string }>>().data.version, 4);
    assert.equal(live.json<Data<{ notes: string }>>().data.notes, 'second');
  });

  test('history pages with limit and offset; an unknown record is 404', async () => {
    const record = await create();
    let version = 1;
    for (const notes of ['a', 'b', 'c']) version = (await patch(record.id, version, { notes })).version;
    const page = await app.call('GET', `/api/${ordersPath}/${record.id}/history?limit=2&offset=1`);
    assert.equal(page.statusCode, 200, page.body);
    const body = page.json<Data<Event[]> & { pagination: { total: number } }>();
    assert.deepEqual(
      body.data.map((event) => event.new_value?.notes),
      ['a', 'b'],
    );
    assert.equal(body.pagination.total, 4);
    const missing = await app.call('GET', `/api/${ordersPath}/00000000-0000-4000-8000-000000000000/history`);
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json<{ code: string }>().code, 'ENTITY_NOT_FOUND');
  });

  test('at: the exact timestamp of a change, just before it, before creation, after deletion', async () => {
    const record = await create({ notes: 'v1' });
    const createdAt = String(record.created_at);
    const second = await patch(record.id, 1, { notes: 'v2' });
    await app.call('DELETE', `/api/${ordersPath}/${record.id}`);
    const events = await history(record.id);
    const deletedAt = String(events[2]?.new_value?.deleted_at);

    const exact = await at(record.id, second.updated_at);
    assert.equal(exact.statusCode, 200, exact.body);
    assert.equal(exact.json<Data<{ notes: string; version: number }>>().data.notes, 'v2');
    assert.equal(exact.json<Data<{ version: number }>>().data.version, 2);
    const justBefore = await at(record.id, shift(second.updated_at, -1));
    assert.equal(justBefore.json<Data<{ notes: string }>>().data.notes, 'v1');
    const atCreation = await at(record.id, createdAt);
    assert.equal(atCreation.statusCode, 200);
    const beforeCreation = await at(record.id, shift(createdAt, -1));
    assert.equal(beforeCreation.statusCode, 404);
    assert.equal(beforeCreation.json<{ code: string }>().code, 'ENTITY_NOT_FOUND');
    const afterDeletion = await at(record.id, '2999-01-01T00:00:00Z');
    assert.equal(afterDeletion.statusCode, 200);
    assert.equal(afterDeletion.json<Data<{ deleted_at: string }>>().data.deleted_at, deletedAt);
    const bad = await at(record.id, 'yesterday');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json<{ code: string }>().code, 'VALIDATION_ERROR');
  });

  test('restore then diff: the record equals its earlier state and the diff shows what came back', async () => {
    const record = await create({ notes: 'original', amount: 100 });
    const first = String(record.updated_at);
    const changed = await patch(record.id, 1, { notes: 'edited', amount: 200, status: 'submitted' });
    const restore = await app.call('POST', `/api/${ordersPath}/${record.id}/restore`, {
      body: { at: first, reason: 'undo edit' },
    });
    assert.equal(restore.statusCode, 201, restore.body);
    const restored = restore.json<Data<Record<string, unknown>>>().data;
    assert.equal(restored.version, 3);
    assert.equal(restored.notes, 'original');
    assert.equal(restored.amount, 100);
    assert.equal(restored.status, 'draft');
    assert.match(String(restored.restored_at), /Z$/);

    const diff = await app.call(
      'GET',
      `/api/${ordersPath}/${record.id}/diff?from=${encodeURIComponent(changed.updated_at)}&to=${encodeURIComponent(String(restored.restored_at))}`,
    );
    assert.equal(diff.statusCode, 200, diff.body);
    assert.deepEqual(diff.json<Data<unknown>>().data, {
      added: {},
      changed: {
        notes: { from: 'edited', to: 'original' },
        amount: { from: 200, to: 100 },
        status: { from: 'submitted', to: 'draft' },
      },
      removed: {},
    });
    const added = await app.call(
      'GET',
      `/api/${ordersPath}/${record.id}/diff?from=${encodeURIComponent(shift(first, -1))}&to=${encodeURIComponent(first)}`,
    );
    assert.equal(added.json<Data<{ added: Record<string, unknown> }>>().data.added.notes, 'original');
  });

  test('restore refuses an instant before creation (404), a deleted state and a missing reason (400)', async () => {
    const record = await create();
    const early = await app.call('POST', `/api/${ordersPath}/${record.id}/restore`, {
      body: { at: '2000-01-01T00:00:00Z', reason: 'x' },
    });
    assert.equal(early.statusCode, 404);
    const noReason = await app.call('POST', `/api/${ordersPath}/${record.id}/restore`, {
      body: { at: String(record.created_at) },
    });
    assert.equal(noReason.statusCode, 400);
    await app.call('DELETE', `/api/${ordersPath}/${record.id}`);
    const deleted = await app.call('POST', `/api/${ordersPath}/${record.id}/restore`, {
      body: { at: '2999-01-01T00:00:00Z', reason: 'x' },
    });
    assert.equal(deleted.statusCode, 400);
  });

  test('replay streams every event over SSE to a real EventSource client; Last-Event-ID resumes', async () => {
    const record = await create({ notes: 'n0' });
    let version = 1;
    for (let index = 1; index <= 250; index += 1)
      version = (await patch(record.id, version, { notes: `n${index}` })).version;
    const address = await app.service.app.listen({ port: 0, host: '127.0.0.1' });
    const token = await app.token();
    const url = `${address}/api/${ordersPath}/${record.id}/replay`;
    const received: { id: string; event: Event }[] = [];
    await new Promise<void>((resolve, reject) => {
      const source = new EventSource(url, {
        fetch: (input, init) =>
          fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${token}` } }),
      });
      source.onmessage = (message) => {
        received.push({ id: message.lastEventId, event: JSON.parse(message.data as string) as Event });
        if (received.length === 251) {
          source.close();
          resolve();
        }
      };
      source.onerror = (error) => {
        if (received.length < 251 && source.readyState === EventSource.CLOSED)
          reject(new Error(String(error.message)));
      };
    });
    assert.equal(received.length, 251);
    assert.equal(received[0]?.event.operation, 'CREATE');
    assert.equal(received[250]?.event.new_value?.notes, 'n250');
    assert.ok(received.every((item) => item.id === String(item.event.event_id)));

    const resumeAfter = received[247]!.id;
    const resumed = await fetch(url, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': resumeAfter },
    });
    assert.equal(resumed.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    const text = await resumed.text();
    const data = text.split('\n').filter((line) => line.startsWith('data: '));
    assert.deepEqual(
      data.map((line) => (JSON.parse(line.slice(6)) as Event).new_value?.notes),
      ['n248', 'n249', 'n250'],
    );
  });

  test('snapshot: 202 in_progress, the job completes it, rows read with list parameters', async () => {
    const kept = await create({ notes: 'snap-a', amount: 5 });
    const other = await create({ notes: 'snap-b', amount: 7 });
    const instant = String(other.updated_at);
    await patch(kept.id, 1, { notes: 'snap-a-later' });
    await create({ notes: 'snap-c-after' });
    const requested = await app.call('POST', `/api/${ordersPath}/history/snapshot`, {
      body: { at: instant, reason: 'quarter close' },
    });
    assert.equal(requested.statusCode, 202, requested.body);
    const snapshot =
      requested.json<Data<{ snapshot_id: string; status: string; schema: string; timestamp: string }>>().data;
    assert.equal(snapshot.status, 'in_progress');
    assert.equal(snapshot.schema, ordersPath);
    await app.service.snapshots.runPending();
    const done = await app.call('GET', `/api/${ordersPath}/history/snapshot/${snapshot.snapshot_id}`);
    assert.equal(done.statusCode, 200);
    const status = done.json<Data<{ status: string; row_count: number }>>().data;
    assert.equal(status.status, 'completed');
    const rows = await app.call(
      'GET',
      `/api/${ordersPath}/history/snapshot/${snapshot.snapshot_id}/records?filter[amount][lte]=7&sort=-amount`,
    );
    assert.equal(rows.statusCode, 200, rows.body);
    const listed = rows.json<Data<{ id: string; notes: string }[]>>().data;
    assert.ok(
      listed.some((row) => row.id === kept.id && row.notes === 'snap-a'),
      'the state at the instant',
    );
    assert.ok(!listed.some((row) => row.notes === 'snap-c-after'), 'nothing created later');
    assert.equal(listed[0]?.id, other.id, `sorted by amount descending: ${rows.body}`);
    const unknown = await app.call(
      'GET',
      `/api/${ordersPath}/history/snapshot/00000000-0000-4000-8000-000000000000`,
    );
    assert.equal(unknown.statusCode, 404);
  });
});
