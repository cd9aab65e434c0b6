import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, verify as verifySignature } from 'node:crypto';
import { appendFile, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ed25519Signer } from '../../src/platform/crypto/ed25519-signer.js';
import { ArchiveJob } from '../../src/records/archive/archive-job.js';
import { AnchorStore } from '../../src/records/audit/anchor-store.js';
import { historyTable } from '../../src/records/ddl/change-triggers.js';
import { captureLogs } from '../helpers/log-capture.js';
import { MovableClock } from './support/auth-fixtures.js';
import { ordersPath, purchaseOrder, startRecordsApp, type RecordsTestApp } from './support/records-app.js';

type Data<T> = { data: T };
interface Finding {
  reason: string;
  event_id: number | null;
  version: number | null;
  history_event_id?: number;
}
interface Verification {
  valid: boolean;
  events: number;
  tampering_detected: number;
  tampered: Finding[];
  anchored: boolean;
  anchor: { status: string; event_id?: number; checkpoint?: number; note?: string; problem?: string };
  legacy_history_rows?: number;
}
interface AuditEvent {
  event_id: number;
  version: number;
  history_event_id?: number;
  history_hash?: string;
}

const signingKeyPem = generateKeyPairSync('ed25519')
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
// The base64 body of the private key: it must appear in no response and no anchor file.
const keyBody = signingKeyPem.split('\n').slice(1, -2).join('');

/** Helpers over one running app: a record with four versions, verify, and superuser SQL. */
function scenario(app: () => RecordsTestApp) {
  const sql = (text: string, values: unknown[] = []) => app().database.pool.query(text, values);
  const history = () => historyTable(app().service.registry.resolve(ordersPath).definition);
  return {
    sql,
    history,
    /** A purchase order created and patched three times (four audit events, four history rows). */
    async chain(): Promise<string> {
      const created = await app().call('POST', `/api/${ordersPath}`, { body: purchaseOrder({ notes: 'a' }) });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json<Data<{ id: string }>>().data.id;
      let version = 1;
      for (const notes of ['b', 'c', 'd']) {
        const patched = await app().call('PATCH', `/api/${ordersPath}/${id}`, { body: { version, notes } });
        assert.equal(patched.statusCode, 200, patched.body);
        version = patched.json<Data<{ version: number }>>().data.version;
      }
      return id;
    },
    async verify(id: string): Promise<Verification> {
      const response = await app().call('POST', '/api/platform/audit/verify', {
        body: { schema: ordersPath, id },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.ok(!response.body.includes(keyBody), 'the signing key never reaches a response');
      return response.json<Data<Verification>>().data;
    },
    async events(id: string): Promise<AuditEvent[]> {
      const response = await app().call('GET', `/api/platform/audit?schema=${ordersPath}&entity_id=${id}`);
      assert.equal(response.statusCode, 200, response.body);
      return response.json<Data<AuditEvent[]>>().data.reverse();
    },
    /**
     * What a superuser can do in SQL: change version 2's `notes` in its history row and its audit
     * event, recompute the history row's hash, then recompute every hash of the record's chain.
     */
    async rewriteAndRehash(id: string, notes: string): Promise<void> {
      const forged = JSON.stringify(notes);
      const { rows } = await sql(
        `SELECT event_id, history_event_id FROM records.audit_events WHERE entity_id = $1 AND version = 2`,
        [id],
      );
      const { event_id: eventId, history_event_id: historyId } = rows[0] as {
        event_id: string;
        history_event_id: string;
      };
      await sql(
        `UPDATE ${history()} SET state = jsonb_set(state, '{notes}', $2::jsonb), new_value = jsonb_set(new_value, '{notes}', $2::jsonb) WHERE event_id = $1`,
        [historyId, forged],
      );
      await sql(
        `UPDATE records.audit_events a SET new_value = jsonb_set(a.new_value, '{notes}', $2::jsonb),
           history_hash = (SELECT records.history_row_hash(h.event_id, h.record_id, h."timestamp", h.actor, h.operation, h.old_value, h.new_value, h.state, h.reason)
                           FROM ${history()} h WHERE h.event_id = a.history_event_id)
         WHERE a.event_id = $1`,
        [eventId, forged],
      );
      await rehash(id);
    },
    rehash,
  };

  async function rehash(id: string): Promise<void> {
    await sql(`DO $$
      DECLARE r record; prev text := ''; next_hash text;
      BEGIN
        FOR r IN SELECT event_id FROM records.audit_events WHERE entity_id = '${id}' ORDER BY event_id LOOP
          UPDATE records.audit_events SET previous_hash = prev,
            hash = encode(sha256(convert_to(prev || records.canonical_json(jsonb_build_object(
              'event_id', event_id,
              'timestamp', to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
              'actor', actor, 'schema', schema_path, 'entity_id', entity_id, 'operation', operation,
              'version', version, 'old_value', old_value, 'new_value', new_value)
              || CASE WHEN history_hash IS NULL THEN '{}'::jsonb
                 ELSE jsonb_build_object('history_event_id', history_event_id, 'history_hash', history_hash) END), 'UTF8')), 'hex')
          WHERE event_id = r.event_id RETURNING hash INTO next_hash;
          prev := next_hash;
        END LOOP;
      END $$`);
  }
}

describe('records audit: history rows are in the chain', () => {
  let app: RecordsTestApp;
  const s = scenario(() => app);
  before(async () => {
    app = await startRecordsApp();
  });
  after(() => app.close());

  test('each event carries the hash of its history row; an untouched chain verifies', async () => {
    const id = await s.chain();
    const events = await s.events(id);
    assert.equal(events.length, 4);
    assert.ok(events.every((event) => typeof event.history_event_id === 'number' && event.history_hash));
    const result = await s.verify(id);
    assert.equal(result.valid, true, JSON.stringify(result));
    assert.equal(result.tampering_detected, 0);
    assert.deepEqual(result.tampered, []);
    assert.equal(result.anchored, false);
    assert.equal(
      result.anchor.status,
      'not_configured',
      'without a key verify says the chain is not anchored',
    );
  });

  test("an edited history row's state is reported, with its event and version", async () => {
    const id = await s.chain();
    const events = await s.events(id);
    const second = events[1]!;
    await s.sql(
      `UPDATE ${s.history()} SET state = jsonb_set(state, '{notes}', '"forged"') WHERE event_id = $1`,
      [second.history_event_id],
    );
    const served = await app.call('GET', `/api/${ordersPath}/${id}/history`);
    assert.equal(served.statusCode, 200);
    const result = await s.verify(id);
    assert.equal(result.valid, false);
    assert.equal(result.tampering_detected, 1);
    assert.deepEqual(result.tampered, [
      {
        reason: 'history_mismatch',
        event_id: second.event_id,
        version: 2,
        history_event_id: second.history_event_id,
      },
    ]);
  });

  test('a deleted history row and an inserted one are reported', async () => {
    const id = await s.chain();
    const events = await s.events(id);
    await s.sql(`DELETE FROM ${s.history()} WHERE event_id = $1`, [events[2]!.history_event_id]);
    const { rows } = await s.sql(
      `INSERT INTO ${s.history()} (record_id, "timestamp", actor, operation, old_value, new_value, state)
       SELECT record_id, "timestamp" + interval '1 second', 'mallory', 'UPDATE', old_value, new_value, state
       FROM ${s.history()} WHERE event_id = $1 RETURNING event_id`,
      [events[3]!.history_event_id],
    );
    const result = await s.verify(id);
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.tampered.map((finding) => [finding.reason, finding.version, finding.history_event_id]),
      [
        ['history_missing', 3, events[2]!.history_event_id],
        ['history_unlinked', null, Number((rows[0] as { event_id: string }).event_id)],
      ],
    );
  });

  test('events written before history joined the chain (no link) verify, their rows counted as legacy', async () => {
    const id = await s.chain();
    await s.sql(
      `UPDATE records.audit_events SET history_event_id = NULL, history_hash = NULL WHERE entity_id = $1`,
      [id],
    );
    await s.rehash(id);
    const result = await s.verify(id);
    assert.equal(result.valid, true, JSON.stringify(result));
    assert.equal(result.legacy_history_rows, 4);
  });

  test('an event from a trigger generated before 0014 (eight-argument append_audit) still verifies', async () => {
    const id = await s.chain();
    await s.sql(
      `SELECT records.append_audit($1, $2, 'UPDATE', 'old-trigger', now(), 5, '{"notes":"d"}', '{"notes":"e"}')`,
      [ordersPath, id],
    );
    const result = await s.verify(id);
    assert.equal(result.valid, true, JSON.stringify(result));
    assert.equal(result.events, 5);
    assert.equal((await s.events(id))[4]!.history_hash, undefined);
  });

  test('without anchors, a superuser rewrite that recomputes every hash passes verify (why anchors exist)', async () => {
    const id = await s.chain();
    await s.rewriteAndRehash(id, 'forged');
    const result = await s.verify(id);
    assert.equal(result.valid, true, JSON.stringify(result));
    assert.equal(result.anchored, false);
  });
});

describe('records audit: signed anchors outside the database', () => {
  let app: RecordsTestApp;
  let anchorDir: string;
  const s = scenario(() => app);
  const job = () => {
    const anchor = app.service.auditAnchor;
    assert.ok(anchor, 'a signing key starts the anchor job');
    return anchor;
  };
  const checkpointFile = async () => {
    const files = (await readdir(anchorDir)).filter((name) => name.startsWith('checkpoints-'));
    assert.equal(files.length, 1);
    return path.join(anchorDir, files[0]!);
  };
  before(async () => {
    anchorDir = await mkdtemp(path.join(os.tmpdir(), 'weft-anchors-'));
    app = await startRecordsApp({
      RECORDS_AUDIT_SIGNING_KEY: signingKeyPem.replace(/\n/g, '\\n'),
      RECORDS_AUDIT_ANCHOR_DIR: anchorDir,
    });
  });
  after(() => app.close());

  test('an untouched, anchored chain verifies against its checkpoint', async () => {
    const id = await s.chain();
    const pending = await s.verify(id);
    assert.equal(pending.valid, true);
    assert.equal(pending.anchor.status, 'not_yet_anchored');
    const run = await job().runOnce();
    assert.ok(run.anchored >= 1);
    const result = await s.verify(id);
    assert.equal(result.valid, true, JSON.stringify(result));
    assert.equal(result.anchored, true);
    assert.equal(result.anchor.status, 'match');
    assert.equal(result.anchor.event_id, (await s.events(id))[3]!.event_id);
  });

  test('a superuser who rewrites and re-hashes the whole chain in SQL is reported', async () => {
    const id = await s.chain();
    await job().runOnce();
    const head = (await s.events(id))[3]!;
    await s.rewriteAndRehash(id, 'forged');
    const result = await s.verify(id);
    assert.equal(result.valid, false, JSON.stringify(result));
    assert.equal(result.anchor.status, 'mismatch');
    assert.deepEqual(result.tampered, [{ reason: 'anchor_mismatch', event_id: head.event_id, version: 4 }]);
    // The next run does not sign the rewritten head, even after a new change on top of it.
    const patched = await app.call('PATCH', `/api/${ordersPath}/${id}`, { body: { version: 4, notes: 'e' } });
    assert.equal(patched.statusCode, 200, patched.body);
    const run = await job().runOnce();
    assert.ok(run.refused >= 1);
    const after = await s.verify(id);
    assert.equal(after.valid, false);
    assert.equal(after.anchor.status, 'mismatch');
  });

  test('deleting the anchored events is reported', async () => {
    const id = await s.chain();
    await job().runOnce();
    await s.sql(`DELETE FROM records.audit_events WHERE entity_id = $1 AND version >= 3`, [id]);
    const result = await s.verify(id);
    assert.equal(result.valid, false);
    assert.equal(result.anchor.status, 'missing');
  });

  test('the checkpoint file only grows: each run appends signed lines linked to the one before', async () => {
    const file = await checkpointFile();
    await s.chain();
    await job().runOnce();
    const first = await readFile(file, 'utf8');
    assert.equal((await job().runOnce()).anchored, 0, 'nothing new, nothing appended');
    assert.equal(await readFile(file, 'utf8'), first);
    const id = await s.chain();
    await job().runOnce();
    const second = await readFile(file, 'utf8');
    assert.ok(second.startsWith(first) && second.length > first.length, 'a new checkpoint is appended');
    assert.ok(!second.includes(keyBody), 'the key is not in the anchor file');

    // A third party checks the file with the published public key alone.
    const keyFile = (await readdir(anchorDir)).find((name) => name.startsWith('public-key-'))!;
    const publicKey = await readFile(path.join(anchorDir, keyFile), 'utf8');
    const lines = second.trimEnd().split('\n');
    let previous = '';
    for (const [index, line] of lines.entries()) {
      const { signature, ...checkpoint } = JSON.parse(line) as {
        signature: string;
        seq: number;
        previous: string;
      };
      assert.equal(checkpoint.seq, index + 1);
      assert.equal(checkpoint.previous, previous);
      assert.ok(
        verifySignature(
          null,
          Buffer.from(JSON.stringify(checkpoint)),
          publicKey,
          Buffer.from(signature, 'base64'),
        ),
        `line ${index + 1} is signed`,
      );
      previous = createHash('sha256').update(line).digest('hex');
    }
    const last = JSON.parse(lines[lines.length - 1]!) as { heads: string[][] };
    assert.ok(last.heads.some((head) => head[1] === id));
  });

  test('an edited or forged anchor file is reported, not trusted', async () => {
    const file = await checkpointFile();
    const id = await s.chain();
    await job().runOnce();
    // Re-read from the start, as a restarted instance would: an edited line fails its signature.
    const text = await readFile(file, 'utf8');
    const edited = path.join(
      await mkdtemp(path.join(os.tmpdir(), 'weft-anchors-edited-')),
      path.basename(file),
    );
    await writeFile(edited, text.replace(/[0-9a-f]{64}(?="\])/, '0'.repeat(64)));
    const signer = Ed25519Signer.fromPem(signingKeyPem)!;
    const reopened = await AnchorStore.open(path.dirname(edited), signer);
    const lookup = await reopened.lookup(ordersPath, id);
    assert.equal(lookup.intact, false);
    // A line appended by someone without the key is caught by the running instance.
    await appendFile(file, `${text.trimEnd().split('\n').pop()!}\n`);
    const result = await s.verify(id);
    assert.equal(result.valid, false);
    assert.equal(result.anchor.status, 'store_invalid');
    assert.deepEqual(
      result.tampered.map((finding) => finding.reason),
      ['anchor_store_invalid'],
    );
  });
});

describe('records audit: archived history stays in the chain', () => {
  const ticketsPath = 'acme/support/desk/tickets/v1';
  const ticketsYaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: tickets-v1 }
spec:
  org: acme
  app: support
  domain: desk
  object: tickets
  version: v1
  timeMachine: true
  fields:
    - { name: code, type: string, required: true }
    - { name: status, type: enum, enum: [open, closed], required: true }
  access:
    roles: { create: [admin], read: [admin], update: [admin], delete: [admin] }
  archive:
    afterDays: 30
`;
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp({}, { resources: { 'tickets.yaml': ticketsYaml } });
  });
  after(() => app.close());

  test('the ARCHIVE event covers the archived ARCHIVE history row; an edited archived row is reported', async () => {
    const created = await app.call('POST', `/api/${ticketsPath}`, { body: { code: 'T-1', status: 'open' } });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<Data<{ id: string }>>().data.id;
    const patched = await app.call('PATCH', `/api/${ticketsPath}/${id}`, {
      body: { version: 1, status: 'closed' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const clock = new MovableClock();
    clock.advance(31 * 86_400_000);
    const job = new ArchiveJob({
      pool: app.database.pool,
      registry: app.service.registry,
      clock,
      logger: captureLogs('fatal').logger,
    });
    assert.equal(await job.runOnce(), 1);
    const verify = async () => {
      const response = await app.call('POST', '/api/platform/audit/verify', {
        body: { schema: ticketsPath, id },
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json<Data<Verification>>().data;
    };
    const archived = await verify();
    assert.equal(archived.valid, true, JSON.stringify(archived));
    assert.equal(archived.events, 3);
    const { rows } = await app.database.pool.query<{ operation: string; linked: string | null }>(
      `SELECT a.operation, h.operation AS linked FROM records.audit_events a
       LEFT JOIN records_archive.history h ON h.event_id = a.history_event_id AND h.record_id = a.entity_id
       WHERE a.entity_id = $1 ORDER BY a.event_id`,
      [id],
    );
    assert.deepEqual(
      rows.map((row) => [row.operation, row.linked]),
      [
        ['CREATE', 'CREATE'],
        ['UPDATE', 'UPDATE'],
        ['ARCHIVE', 'ARCHIVE'],
      ],
    );
    await app.database.pool.query(
      `UPDATE records_archive.history SET state = jsonb_set(state, '{code}', '"T-forged"') WHERE record_id = $1 AND operation = 'CREATE'`,
      [id],
    );
    const edited = await verify();
    assert.equal(edited.valid, false);
    assert.deepEqual(
      edited.tampered.map((finding) => [finding.reason, finding.version]),
      [['history_mismatch', 1]],
    );
  });
});
