import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ordersPath, startRecordsApp, type RecordsTestApp } from './support/records-app.js';

const notes = `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: {name: notes}
spec:
  org: demo
  app: desk
  domain: memos
  object: notes
  version: v1
  searchTier: 2
  fields:
    - {name: title, type: string, required: true, searchable: true, filterable: true}
    - {name: salary, type: integer}
    - {name: owner, type: string}
  access:
    roles: {create: [editor], read: [editor, reader], update: [editor]}
    fieldAccess:
      - {field: salary, read: [editor]}
      - {field: owner, write: [editor]}
`;

interface Description {
  path: string;
  searchTier: number;
  timeMachine: boolean;
  fields: ({ name: string; readable: boolean; writable: boolean } & Record<string, unknown>)[];
  operations: Record<string, boolean>;
  filterOperators: string[];
}

describe('records: GET /{path}/_schema describes a schema for its caller', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp({}, { resources: { 'notes.yaml': notes } });
  });
  after(() => app.close());

  const describeAs = async (path: string, roles: string[]) => {
    const response = await app.call('GET', `/api/${path}/_schema`, { roles });
    return { status: response.statusCode, body: response.json() as { data: Description; code?: string } };
  };

  test('fields with types and constraints, flags, search tier and time machine', async () => {
    const { status, body } = await describeAs(ordersPath, ['buyer']);
    assert.equal(status, 200);
    assert.equal(body.data.path, ordersPath);
    assert.equal(body.data.timeMachine, true);
    assert.equal(body.data.searchTier, 1);
    const poNumber = body.data.fields.find((field) => field.name === 'po_number');
    assert.deepEqual(
      { ...poNumber },
      {
        name: 'po_number',
        type: 'string',
        required: true,
        unique: true,
        pattern: '^PO-[0-9]{6}$',
        searchable: false,
        filterable: true,
        sortable: true,
        readable: true,
        writable: true,
      },
    );
    const status_ = body.data.fields.find((field) => field.name === 'status');
    assert.deepEqual(status_?.enum, ['draft', 'submitted', 'approved', 'received', 'cancelled']);
    assert.equal(status_?.default, 'draft');
    assert.equal(body.data.fields.find((field) => field.name === 'amount')?.min, 0);
    assert.deepEqual(body.data.operations, { create: true, read: true, update: true, delete: false });
    assert.ok(body.data.filterOperators.includes('in'));
  });

  test('field rules tell what the caller may read and write; the rules themselves stay hidden', async () => {
    const path = 'demo/desk/memos/notes/v1';
    const reader = (await describeAs(path, ['reader'])).body.data;
    const flags = (data: Description) =>
      Object.fromEntries(data.fields.map((field) => [field.name, [field.readable, field.writable]]));
    assert.deepEqual(flags(reader), { title: [true, true], salary: [false, true], owner: [true, false] });
    assert.deepEqual(reader.operations, { create: false, read: true, update: false, delete: false });
    assert.equal(reader.searchTier, 2);
    const editor = (await describeAs(path, ['editor'])).body.data;
    assert.deepEqual(flags(editor), { title: [true, true], salary: [true, true], owner: [true, true] });
    assert.doesNotMatch(JSON.stringify(reader), /editor/);
  });

  test('a caller without read access is 403; an unknown schema 404', async () => {
    const denied = await describeAs(ordersPath, ['nobody']);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'RBAC_DENIED');
    const missing = await describeAs('acme/none/none/none/v1', ['admin']);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'SCHEMA_NOT_FOUND');
  });
});
