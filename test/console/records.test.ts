import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, screenshot, seriousViolations } from '../helpers/browser.js';
import {
  ordersPath,
  purchaseOrder,
  seededSupplierId,
  startRecordsApp,
  suppliersPath,
  type Body,
  type RecordsTestApp,
} from '../records/support/records-app.js';

// A tier 3 schema whose `salary` only managers may read: the table shows it as hidden.
const staffPath = 'acme/people/directory/staff/v1';
const staff = `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: {name: staff}
spec:
  org: acme
  app: people
  domain: directory
  object: staff
  version: v1
  displayName: Staff
  searchTier: 3
  fields:
    - {name: name, type: string, required: true, searchable: true, filterable: true, sortable: true}
    - {name: salary, type: integer, filterable: true}
  access:
    fieldAccess:
      - {field: salary, read: [manager]}
`;

/** Errors the scenario causes on purpose (the browser logs every 4xx answer). */
const expectedStatuses =
  (...statuses: number[]) =>
  (error: string) =>
    !statuses.some((status) => error.includes(`status of ${status}`));

describe('records console: schemas, records, forms, time machine, audit', () => {
  let records: RecordsTestApp;
  let browser: Browser;
  let origin: string;

  before(async () => {
    records = await startRecordsApp({}, { resources: { 'staff.yaml': staff } });
    origin = new URL(await records.service.app.listen({ host: '127.0.0.1', port: 0 })).origin;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await records?.close();
  });

  async function logIn(page: Page, url: string, roles = ['admin']): Promise<void> {
    await page.goto(`${origin}${url}`);
    await page.getByLabel('API key').fill(await records.token('alice', roles));
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  const create = async (body: Record<string, unknown>, path = ordersPath) =>
    ((await (await records.call('POST', `/api/${path}`, { body })).json()) as Body).data;

  test('the schemas page shows every field with its type and constraints, the search tier and the time machine', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, '/console/schemas');
      const orders = page.getByRole('region', { name: 'Purchase orders' });
      await orders.getByRole('rowheader', { name: 'po_number' }).waitFor();
      const poRow = orders
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'po_number' }) });
      assert.match(
        await poRow.innerText(),
        /string.*required; unique; pattern \^PO-\[0-9\]\{6\}\$.*filterable, sortable.*read, write/s,
      );
      assert.match(await orders.innerText(), /search tier 1 · time machine on/);
      const statusRow = orders
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'status' }) });
      assert.match(await statusRow.innerText(), /one of draft, submitted, approved, received, cancelled/);
      assert.match(await page.getByRole('region', { name: 'Suppliers' }).innerText(), /search tier 2/);
      await screenshot(page, 'records-schema-fields');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('the records table sorts, filters with the list operators and pages with the cursor; hidden fields say so', async () => {
    for (let n = 0; n < 23; n += 1)
      await create(
        purchaseOrder({
          po_number: `PO-7${String(n).padStart(5, '0')}`,
          amount: n,
          status: n < 3 ? 'approved' : 'draft',
        }),
      );
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, `/console/records/${ordersPath}`);
      await page.getByRole('heading', { name: 'Purchase orders' }).waitFor();
      await page.getByText('Page 1').waitFor();
      const table = page.getByRole('table', { name: 'Purchase orders records' });
      assert.equal(await table.getByRole('row').count(), 21); // header + 20
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('Page 2').waitFor();
      await table.getByRole('cell', { name: 'PO-700022' }).waitFor();
      assert.equal(await table.getByRole('row').count(), 4);
      await page.getByRole('button', { name: 'Previous page' }).click();
      await page.getByText('Page 1').waitFor();

      await page.getByLabel('Sort by').selectOption('amount');
      await page.getByLabel('Order', { exact: true }).selectOption('desc');
      await table.getByRole('cell', { name: 'PO-700022' }).waitFor();
      assert.match(await table.getByRole('row').nth(1).innerText(), /PO-700022/);

      await page.getByText('Filters', { exact: true }).click();
      await page.getByLabel('status value').selectOption('approved');
      await page.getByLabel('amount operator').selectOption('gte');
      await page.getByLabel('amount value').fill('1');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await table.getByRole('cell', { name: 'PO-700002' }).waitFor();
      assert.equal(await table.getByRole('row').count(), 3);
      assert.match(await table.innerText(), /PO-700002[\s\S]*PO-700001/);
      await screenshot(page, 'records-table');
      assert.deepEqual(await seriousViolations(page), []);

      // A field read rule: the column says it is hidden, values read as hidden; tier 3 search ranks.
      await create({ name: 'Grace Hopper', salary: 9000 }, staffPath);
      await create({ name: 'Alan Turing', salary: 8000 }, staffPath);
      await page.goto(`${origin}/console/records/${staffPath}`);
      await page.getByLabel('API key').fill(await records.token('bob', ['clerk']));
      await page.getByRole('button', { name: 'Log in' }).click();
      const staffTable = page.getByRole('table', { name: 'Staff records' });
      await staffTable.getByRole('cell', { name: 'Grace Hopper' }).waitFor();
      await staffTable.getByRole('columnheader', { name: 'salary (hidden from you)' }).waitFor();
      assert.equal(await staffTable.getByRole('cell', { name: 'hidden', exact: true }).count(), 2);
      await page.getByLabel('Full-text search').fill('hoper');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const hits = page.getByRole('region', { name: 'Search results' });
      await hits.getByRole('cell', { name: 'Grace Hopper' }).waitFor();
      assert.equal(await hits.getByRole('cell', { name: 'Alan Turing' }).count(), 0);
      await screenshot(page, 'records-hidden-field-search');
      assert.deepEqual(await seriousViolations(page), []);

      // Tier 2: the org search, this schema's hits.
      await page.goto(`${origin}/console/records/${suppliersPath}`);
      await page.getByLabel('API key').fill(await records.token('alice', ['admin']));
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByLabel('Full-text search').fill('Seeded');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('link', { name: /Seeded Supplier/ }).waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('create through the generated form: a validation error beside its field, then the record', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, `/console/records/${ordersPath}/new`);
      await page.getByRole('heading', { name: 'New Purchase orders' }).waitFor();
      assert.equal(await page.getByLabel('status').inputValue(), 'draft', 'the default is filled in');
      await page.getByLabel('po_number').fill('PO-12');
      await page.getByLabel('supplier_id').fill(seededSupplierId);
      await page.getByLabel('currency').selectOption('EUR');
      await page.getByLabel('amount').fill('-5');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByText(/po_number must match pattern/).waitFor();
      await page.getByText(/amount must be >= 0/).waitFor();
      assert.equal(await page.getByLabel('po_number').getAttribute('aria-invalid'), 'true');
      await screenshot(page, 'records-create-validation');
      assert.deepEqual(await seriousViolations(page), []);

      await page.getByLabel('po_number').fill('PO-424242');
      await page.getByLabel('amount').fill('99.5');
      await page.getByLabel('lines').fill('[{"sku": "A-1", "qty": 2}]');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: /^Purchase orders [0-9a-f]{8}$/ }).waitFor();
      const id = page.url().split('/').pop() ?? '';
      const stored = ((await (await records.call('GET', `/api/${ordersPath}/${id}`)).json()) as Body).data;
      assert.equal(stored.po_number, 'PO-424242');
      assert.equal(stored.amount, 99.5);
      assert.deepEqual(stored.lines, [{ sku: 'A-1', qty: 2 }]);
      assert.equal(stored.created_by, 'alice');
      assert.deepEqual(errors.filter(expectedStatuses(400)), []);
    } finally {
      await close();
    }
  });

  test('edit, a version conflict shown instead of overwritten, history, as of, diff, restore and audit', async () => {
    const order = await create(purchaseOrder({ amount: 100, notes: 'first' }));
    const { page, errors, close } = await openPage(browser);
    try {
      await logIn(page, `/console/records/${ordersPath}/${order.id}`);
      await page.getByRole('button', { name: 'Save (version 1)' }).waitFor();
      await page.getByLabel('amount').fill('150');
      await page.getByRole('button', { name: 'Save (version 1)' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved: version 2.' }).waitFor();

      // Someone else changes it between loading and saving.
      await page.getByLabel('notes').fill('from the console');
      const other = await records.call('PATCH', `/api/${ordersPath}/${order.id}`, {
        actor: 'bob',
        body: { version: 2, amount: 175 },
      });
      assert.equal(other.statusCode, 200);
      await page.getByRole('button', { name: 'Save (version 2)' }).click();
      const conflict = page
        .getByRole('alert')
        .filter({ has: page.getByRole('heading', { name: 'Version conflict' }) });
      await conflict.waitFor();
      assert.match(
        await conflict.innerText(),
        /you edited version 2, but the record is now at version 3 \(changed by bob/,
      );
      const amountRow = conflict
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'amount' }) });
      assert.match(await amountRow.innerText(), /175\s+150/);
      await screenshot(page, 'records-version-conflict');
      assert.deepEqual(await seriousViolations(page), []);
      let stored = ((await (await records.call('GET', `/api/${ordersPath}/${order.id}`)).json()) as Body)
        .data;
      assert.equal(stored.notes, 'first', 'nothing was overwritten');
      assert.equal(stored.amount, 175);
      await page.getByRole('button', { name: 'Discard my edits and load the current values' }).click();
      assert.equal(await page.getByLabel('amount').inputValue(), '175');
      assert.equal(await page.getByLabel('notes').inputValue(), 'first');
      await page.getByRole('button', { name: 'Save (version 3)' }).waitFor();

      // The time machine.
      await page.getByRole('link', { name: 'History' }).click();
      await page.getByRole('heading', { name: /^History of Purchase orders/ }).waitFor();
      const timeline = page.getByRole('region', { name: 'Timeline' });
      await timeline.getByRole('cell', { name: 'CREATE', exact: true }).waitFor();
      assert.equal(await timeline.getByRole('cell', { name: 'UPDATE', exact: true }).count(), 2);
      assert.match(await timeline.innerText(), /amount: 150 → 175/);
      await timeline
        .getByRole('button', { name: /^Use instant #/ })
        .first()
        .click();
      await page.getByRole('button', { name: 'Show the record as of then' }).click();
      const asOf = page.getByRole('table', { name: /^The record as of/ });
      await asOf.waitFor();
      assert.match(await asOf.getByRole('row').filter({ hasText: 'amount' }).innerText(), /amount\s+100/);
      await page.getByRole('button', { name: 'Compare' }).click();
      const diff = page.getByRole('table', { name: 'Differences' });
      assert.match(
        await diff.getByRole('row').filter({ hasText: 'amount' }).innerText(),
        /changed\s+100\s+175/,
      );

      await page.getByLabel('Reason').fill('undo the price changes');
      await page.getByRole('button', { name: 'Restore the record' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Restored: the record is now at version 4.' })
        .waitFor();
      await timeline.getByRole('cell', { name: 'undo the price changes' }).waitFor();
      stored = ((await (await records.call('GET', `/api/${ordersPath}/${order.id}`)).json()) as Body).data;
      assert.equal(stored.amount, 100);
      assert.equal(stored.version, 4);

      await page.getByRole('button', { name: 'Verify the audit trail' }).click();
      await page.getByRole('status').filter({ hasText: 'Valid: 4 audit events, no tampering.' }).waitFor();
      await screenshot(page, 'records-history-restore-audit');
      assert.deepEqual(await seriousViolations(page), []);

      // An audit event edited in SQL: verification says tampered.
      await records.database.pool.query(
        `UPDATE records.audit_events SET new_value = jsonb_set(new_value, '{amount}', '1') WHERE entity_id = $1 AND event_id = (SELECT min(event_id) + 1 FROM records.audit_events WHERE entity_id = $1)`,
        [order.id],
      );
      await page.getByRole('button', { name: 'Verify the audit trail' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /Tampered: 1 of 4 audit events/ })
        .waitFor();
      assert.match(await page.getByRole('region', { name: 'Audit' }).innerText(), /hash_mismatch/);
      await screenshot(page, 'records-audit-tampered');
      assert.deepEqual(errors.filter(expectedStatuses(409)), []);
    } finally {
      await close();
    }
  });

  test('at 390 px wide the records table and the form stay usable', async () => {
    const { page, errors, close } = await openPage(browser, { width: 390, height: 800 });
    try {
      await logIn(page, `/console/records/${ordersPath}`);
      await page.getByRole('table', { name: 'Purchase orders records' }).waitFor();
      const overflow = await page.evaluate<boolean>(
        'document.documentElement.scrollWidth > window.innerWidth',
      );
      assert.equal(overflow, false, 'the page itself does not scroll sideways');
      await screenshot(page, 'records-table-narrow');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
