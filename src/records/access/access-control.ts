import type { Clock } from '../../platform/clock.js';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import { parseExactJson, stringifyExactJson } from '../../platform/json/exact-json.js';
import { findInexactNumbers, replaceRootMembers } from '../../platform/json/inexact-numbers.js';
import { roleAccessCheck, type AccessCheck } from '../auth/access-check.js';
import { RecordsErrors } from '../errors.js';
import type { CursorCodec } from '../records/cursor.js';
import type { Queryable } from '../../platform/database/queryable.js';
import { getRecord } from '../records/record-repository.js';
import { selectRecords, type RecordPage } from '../records/select-records.js';
import type { Condition, SelectPlan } from '../records/select-plan.js';
import { statement } from '../records/statement.js';
import { columnJsonSql, jsonObjectSql, type CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity, Operation } from '../types.js';
import { beginAccessSession, withAccessSession } from './access-session.js';
import { celActor, compileRule, type CompiledRule } from './cel-rules.js';
import { checkFieldWrites, hiddenFields, maskRecord } from './field-access.js';
import { hasRowSecurity } from './rls-ddl.js';
import { rowFilterSql } from './row-filter.js';
import { statementSession } from './statement-session.js';

/** Options of AccessControl. */
export interface AccessControlOptions {
  clock: Clock;
  /**
   * Layer 4 in the application (default true). Tests turn it off to show that layer 7 (RLS) alone
   * still hides the rows; nothing else should.
   */
  applyRowFilters?: boolean;
}

/** A schema's rules compiled once per schema version. */
interface SchemaRules {
  /** ABAC rules per operation, split by whether they need the stored record. */
  before: Record<Operation, CompiledRule[]>;
  onRecord: Record<Operation, CompiledRule[]>;
  session: boolean;
  /** Per-caller views by role set (bounded). */
  views: Map<string, CompiledSchema>;
}

const maxViewsPerSchema = 256;

function columnsOf(condition: Condition): string[] {
  if (condition.kind === 'compare') return [condition.column.name];
  if (condition.kind === 'not') return columnsOf(condition.item);
  return condition.items.flatMap(columnsOf);
}

/**
 * Filtering or sorting on a field the caller cannot read would reveal its values (through the rows
 * matched, their order, or the cursor, which carries sort values): 400.
 */
export function checkPlanFields(
  identity: Identity,
  schema: CompiledSchema,
  plan: Pick<SelectPlan, 'where' | 'sort'>,
): void {
  const hidden = new Set(hiddenFields(schema.definition.access, identity.roles));
  if (hidden.size === 0) return;
  const used = [...plan.where.flatMap(columnsOf), ...plan.sort.map((key) => key.column.name)];
  const denied = [...new Set(used.filter((name) => hidden.has(name)))];
  if (denied.length > 0)
    throw RecordsErrors.validation(
      'The query filters or sorts on fields the caller may not read',
      denied.map((field) => ({ field, reason: 'is not readable by the caller' })),
    );
}

/** Another schema joined by `include`, through a reference field. */
export interface IncludePlan {
  field: string;
  target: CompiledSchema;
}

/**
 * The seven access layers of the records service, in the spec's order of concern: route RBAC,
 * ABAC (CEL), cross-schema RBAC for `include`, row filters (SQL folded into every statement), the
 * field read filter (masked in the JSON Postgres builds), the field write filter, and row-level
 * security (requests on schemas with row filters run as `weft_records_api` with the caller in
 * transaction settings, see access-session.ts).
 */
export class AccessControl implements AccessCheck {
  private readonly compiled = new WeakMap<CompiledSchema, SchemaRules>();
  private readonly applyRowFilters: boolean;

  constructor(private readonly options: AccessControlOptions) {
    this.applyRowFilters = options.applyRowFilters ?? true;
  }

  /** Layer 1: 403 RBAC_DENIED unless the caller holds a role listed for the operation. */
  authorize(identity: Identity, schema: CompiledSchema, operation: Operation): void {
    roleAccessCheck.authorize(identity, schema, operation);
  }

  /** Layer 3: read access (RBAC and the ABAC rules that need no record) on each joined schema. */
  authorizeIncludes(identity: Identity, includes: IncludePlan[]): void {
    for (const { field, target } of includes) {
      try {
        this.authorize(identity, target, 'read');
        this.evaluate(identity, target, 'read', false, {});
      } catch {
        throw RecordsErrors.crossSchemaDenied(field, target.path);
      }
    }
  }

  /** Layer 2 for the rules that need no stored record (`request` is the payload of create/update). */
  checkBefore(
    identity: Identity,
    schema: CompiledSchema,
    operation: Operation,
    request?: Record<string, unknown>,
  ): void {
    this.evaluate(identity, schema, operation, false, request ? { request } : {});
  }

  /**
   * Layers 5 and 4 as one read-only schema view for this caller: unreadable fields are NULL in the
   * JSON Postgres builds, and the caller's row filter is part of every statement.
   */
  view(identity: Identity, schema: CompiledSchema, options: { mask?: boolean } = {}): CompiledSchema {
    const rules = this.rulesOf(schema);
    const mask = options.mask ?? true;
    const key = `${mask ? 'm' : 'u'}|${[...identity.roles].sort().join('\u0001')}`;
    const known = rules.views.get(key);
    if (known) return known;
    const hidden = mask ? new Set(hiddenFields(schema.definition.access, identity.roles)) : new Set<string>();
    const rowFilter = this.applyRowFilters
      ? rowFilterSql(schema.definition.access, identity.roles)
      : undefined;
    let view = schema;
    if (hidden.size > 0 || rowFilter !== undefined) {
      const recordJson =
        hidden.size === 0
          ? schema.recordJson
          : jsonObjectSql(
              [...schema.columns.values()].map((column) => [
                column.name,
                hidden.has(column.name) ? 'NULL' : columnJsonSql(column),
              ]),
            );
      view = {
        ...schema,
        recordJson,
        readSql: `SELECT ${recordJson}::text AS j FROM ${schema.table} WHERE id = $1 AND deleted_at IS NULL${rowFilter !== undefined ? ` AND ${rowFilter}` : ''}`,
        ...(rowFilter !== undefined ? { rowFilter } : {}),
      };
    }
    if (rules.views.size >= maxViewsPerSchema) rules.views.clear();
    rules.views.set(key, view);
    return view;
  }

  /** True when requests on any of `schemas` must run in an access session (layer 7). */
  needsSession(...schemas: CompiledSchema[]): boolean {
    return schemas.some((schema) => this.rulesOf(schema).session);
  }

  /** Runs read statements as the caller: in an access session when a schema has row security. */
  read<T>(
    pool: Pool,
    identity: Identity,
    schemas: CompiledSchema[],
    work: (db: Queryable) => Promise<T>,
  ): Promise<T> {
    return this.needsSession(...schemas) ? withAccessSession(pool, identity, work) : work(pool);
  }

  /** GET by id through every read layer; undefined when the caller cannot see the record. */
  async readOne(
    pool: Pool,
    identity: Identity,
    schema: CompiledSchema,
    id: string,
    includes: IncludePlan[] = [],
  ): Promise<{ json: string | undefined; included?: string }> {
    this.authorizeIncludes(identity, includes);
    this.checkBefore(identity, schema, 'read');
    const recordRules = this.rulesOf(schema).onRecord.read.length > 0;
    const view = this.view(identity, schema, { mask: !recordRules });
    if (includes.length === 0 && this.needsSession(schema)) {
      // One round trip instead of three (BEGIN + settings, the read, COMMIT), the read prepared once
      // per connection (see statement-session.ts).
      const json = await getRecord(statementSession(pool, identity), view, id);
      if (json === undefined) return { json: undefined };
      return { json: this.finishRows(identity, schema, [json], recordRules)[0] };
    }
    return this.read(pool, identity, [schema, ...includes.map((plan) => plan.target)], async (db) => {
      const json = await getRecord(db, view, id);
      if (json === undefined) return { json };
      const [finished] = this.finishRows(identity, schema, [json], recordRules);
      const included = await this.loadIncluded(db, identity, includes, [finished ?? json]);
      return { json: finished, ...(included !== undefined ? { included } : {}) };
    });
  }

  /** A list or query page through every read layer (`options.table`: a snapshot of the schema). */
  async readPage(
    pool: Pool,
    identity: Identity,
    schema: CompiledSchema,
    plan: SelectPlan,
    cursors: CursorCodec,
    includes: IncludePlan[] = [],
    options: { table?: string } = {},
  ): Promise<{ page: RecordPage; included?: string }> {
    this.authorizeIncludes(identity, includes);
    this.checkBefore(identity, schema, 'read');
    checkPlanFields(identity, schema, plan);
    const recordRules = this.rulesOf(schema).onRecord.read.length > 0;
    const schemaView = this.view(identity, schema, { mask: !recordRules });
    // A snapshot table has the schema's columns: the same view reads it.
    const view = options.table !== undefined ? { ...schemaView, table: options.table } : schemaView;
    // Record rules see whole records: a projection is then made here, after them.
    const { select, ...unprojected } = plan;
    const run = recordRules ? unprojected : plan;
    const schemas = [schema, ...includes.map((include) => include.target)];
    // Without includes a page is one statement (two when an empty offset page counts): each can
    // carry the session settings in its own round trip.
    const read =
      includes.length === 0 && this.needsSession(schema)
        ? <T>(work: (db: Queryable) => Promise<T>) => work(statementSession(pool, identity))
        : <T>(work: (db: Queryable) => Promise<T>) => this.read(pool, identity, schemas, work);
    return read(async (db) => {
      const page = await selectRecords(db, view, run, cursors);
      page.rows = this.finishRows(identity, schema, page.rows, recordRules);
      if (
        select !== undefined &&
        (recordRules || hiddenFields(schema.definition.access, identity.roles).length > 0)
      )
        page.rows = page.rows.map((json) => {
          const record = maskRecord(identity, schema, parseExactJson(json) as Record<string, unknown>);
          return stringifyExactJson(
            Object.fromEntries(select.map((column) => [column.name, record[column.name]])),
          );
        });
      const included = await this.loadIncluded(db, identity, includes, page.rows);
      return { page, ...(included !== undefined ? { included } : {}) };
    });
  }

  /**
   * Layers 2 and 4 for the reads about one record beyond GET (history, `at`, diff, replay, audit
   * verification), run on `db` (the caller's access session, see `read`): the read rules that need
   * no record, then, when the schema has a row filter, row security or record read rules, the
   * record's current row (live or soft-deleted) must pass the caller's row filter (else 404, as for
   * GET) and the record read rules (else 403 ABAC_DENIED). A record no longer in its table (moved
   * to the archive) cannot be checked against a row filter, so it is hidden too.
   */
  async requireReadable(
    db: Queryable,
    identity: Identity,
    schema: CompiledSchema,
    id: string,
  ): Promise<void> {
    this.checkBefore(identity, schema, 'read');
    const rules = this.rulesOf(schema);
    const recordRules = rules.onRecord.read.length > 0;
    const view = this.view(identity, schema, { mask: false });
    if (view.rowFilter === undefined && !rules.session && !recordRules) return;
    const filter = view.rowFilter !== undefined ? ` AND ${view.rowFilter}` : '';
    const { rows } = await db.query<{ j: string | null }>(
      statement(
        `SELECT ${recordRules ? `${view.recordJson}::text` : 'NULL'} AS j FROM ${schema.table} WHERE id = $1${filter}`,
        [id],
      ),
    );
    if (!rows[0]) throw RecordsErrors.entityNotFound(schema.path, id);
    if (recordRules && rows[0].j !== null)
      this.evaluate(identity, schema, 'read', true, {
        record: JSON.parse(rows[0].j) as Record<string, unknown>,
      });
  }

  /**
   * Of `ids` (records of `schema`), those whose record read rules deny `identity`, or that are no
   * longer in the table to be checked; none when the schema has no record read rules. Run on the
   * caller's access session (audit lists drop the events of such records).
   */
  async deniedRecords(
    db: Queryable,
    identity: Identity,
    schema: CompiledSchema,
    ids: string[],
  ): Promise<Set<string>> {
    if (!this.hasRecordReadRules(schema) || ids.length === 0) return new Set();
    const { rows } = await db.query<{ id: string; j: string }>(
      statement(
        `SELECT id::text AS id, ${schema.recordJson}::text AS j FROM ${schema.table} WHERE id = ANY($1::uuid[])`,
        [ids],
      ),
    );
    const allowed = new Set(
      rows
        .filter((row) => this.allowsRecord(identity, schema, JSON.parse(row.j) as Record<string, unknown>))
        .map((row) => row.id),
    );
    return new Set(ids.filter((id) => !allowed.has(id)));
  }

  /** Layer 2's record read rules on a record read elsewhere (search hits): true when all hold. */
  allowsRecord(identity: Identity, schema: CompiledSchema, record: Record<string, unknown>): boolean {
    try {
      this.evaluate(identity, schema, 'read', true, { record });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Layers 2 and 5 on record JSON texts read with an unmasked view (search hits): the record read
   * rules must hold for each (else 403 ABAC_DENIED), then unreadable fields are nulled. Rows read
   * with a masked view (no record rules) come back as they are.
   */
  finishRecords(identity: Identity, schema: CompiledSchema, rows: string[]): string[] {
    return this.finishRows(identity, schema, rows, this.hasRecordReadRules(schema));
  }

  /**
   * Layer 2's rules of `operation` that need the stored record, on a record read elsewhere (an
   * archived copy): 403 ABAC_DENIED unless all hold.
   */
  checkRecord(
    identity: Identity,
    schema: CompiledSchema,
    operation: Operation,
    record: Record<string, unknown>,
  ): void {
    this.evaluate(identity, schema, operation, true, { record });
  }

  /** True when the schema has read rules that need the stored record. */
  hasRecordReadRules(schema: CompiledSchema): boolean {
    return this.rulesOf(schema).onRecord.read.length > 0;
  }

  /**
   * Wraps a write so that it passes layers 2 and 6 (and runs in an access session when the schema
   * has row security): the ABAC rules that need no record run now; inside the write's transaction
   * the stored record is read and locked when a rule needs it, then the field write filter runs.
   * `begin` is what the write pipeline runs first in the transaction, or undefined when the write
   * needs no transaction of its own.
   */
  guardWrite<T>(
    identity: Identity,
    schema: CompiledSchema,
    operation: Exclude<Operation, 'read'>,
    target: { id?: string; payload?: Record<string, unknown> },
    execute: (db: Queryable) => Promise<T>,
  ): { execute: (db: Queryable) => Promise<T>; begin?: (client: PoolClient) => Promise<void> } {
    const rules = this.rulesOf(schema);
    this.checkBefore(identity, schema, operation, target.payload);
    const recordRules = rules.onRecord[operation];
    const guarded = async (db: Queryable) => {
      if (recordRules.length > 0 && target.id !== undefined) {
        const view = this.view(identity, schema, { mask: false });
        const { rows } = await db.query<{ j: string }>(statement(`${view.readSql} FOR UPDATE`, [target.id]));
        if (!rows[0]) throw RecordsErrors.entityNotFound(schema.path, target.id);
        this.evaluate(identity, schema, operation, true, {
          record: JSON.parse(rows[0].j) as Record<string, unknown>,
          ...(target.payload ? { request: target.payload } : {}),
        });
      }
      if (target.payload) checkFieldWrites(identity, schema, target.payload);
      return execute(db);
    };
    if (rules.session) return { execute: guarded, begin: (client) => beginAccessSession(client, identity) };
    if (recordRules.length > 0) return { execute: guarded, begin: () => Promise.resolve() };
    return { execute: guarded };
  }

  /**
   * What a write's transaction runs first when the write is guarded inside it rather than by
   * `guardWrite` (restore, unarchive): the access session on a schema with row security, so RLS
   * (layer 7) checks the rows it changes as the caller; nothing otherwise.
   */
  writeSession(identity: Identity, schema: CompiledSchema): (client: PoolClient) => Promise<void> {
    return this.rulesOf(schema).session
      ? (client) => beginAccessSession(client, identity)
      : () => Promise.resolve();
  }

  /**
   * Layers 2 and 6 on a change that is known only inside the write's transaction (a restore's
   * difference to the stored record, an unarchive's restored fields), exactly as a PATCH of
   * `changes` on `record` passes them: every rule of `operation` with `request` = `changes` (and
   * `record` = the stored record, read and locked by the caller through its row filter), then the
   * field write filter on every field of `changes` (403 FIELD_WRITE_DENIED).
   */
  checkChange(
    identity: Identity,
    schema: CompiledSchema,
    operation: 'update',
    record: Record<string, unknown>,
    changes: Record<string, unknown>,
  ): void {
    this.evaluate(identity, schema, operation, false, { request: changes });
    this.evaluate(identity, schema, operation, true, { record, request: changes });
    checkFieldWrites(identity, schema, changes);
  }

  /** Layer 5 on a record JSON text built without the view (a write's response). */
  maskJson(identity: Identity, schema: CompiledSchema, json: string): string {
    const hidden = hiddenFields(schema.definition.access, identity.roles);
    if (hidden.length === 0) return json;
    // Numbers a double cannot hold (stored exactly) would be rounded by a parse: mask the text.
    if (findInexactNumbers(json) !== null) return replaceRootMembers(json, new Set(hidden), 'null');
    return JSON.stringify(maskRecord(identity, schema, JSON.parse(json) as Record<string, unknown>));
  }

  private finishRows(
    identity: Identity,
    schema: CompiledSchema,
    rows: string[],
    recordRules: boolean,
  ): string[] {
    if (!recordRules) return rows;
    return rows.map((json) => {
      const record = JSON.parse(json) as Record<string, unknown>;
      this.evaluate(identity, schema, 'read', true, { record });
      return this.maskJson(identity, schema, json);
    });
  }

  private async loadIncluded(
    db: Queryable,
    identity: Identity,
    includes: IncludePlan[],
    rows: string[],
  ): Promise<string | undefined> {
    if (includes.length === 0) return undefined;
    const parsed = rows.map((json) => JSON.parse(json) as Record<string, unknown>);
    const members: string[] = [];
    for (const { field, target } of includes) {
      const ids = [
        ...new Set(parsed.map((row) => row[field]).filter((id): id is string => typeof id === 'string')),
      ];
      let records: string[] = [];
      if (ids.length > 0) {
        const recordRules = this.rulesOf(target).onRecord.read.length > 0;
        const view = this.view(identity, target, { mask: !recordRules });
        const filter = view.rowFilter !== undefined ? ` AND ${view.rowFilter}` : '';
        const { rows: found } = await db.query<{ j: string }>(
          statement(
            `SELECT ${view.recordJson}::text AS j FROM ${view.table} WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL${filter} ORDER BY id`,
            [ids],
          ),
        );
        try {
          records = this.finishRows(
            identity,
            target,
            found.map((row) => row.j),
            recordRules,
          );
        } catch {
          throw RecordsErrors.crossSchemaDenied(field, target.path);
        }
      }
      members.push(`${JSON.stringify(field)}:[${records.join(',')}]`);
    }
    return `{${members.join(',')}}`;
  }

  private evaluate(
    identity: Identity,
    schema: CompiledSchema,
    operation: Operation,
    onRecord: boolean,
    values: { record?: Record<string, unknown>; request?: Record<string, unknown> },
  ): void {
    const rules = this.rulesOf(schema);
    const list = onRecord ? rules.onRecord[operation] : rules.before[operation];
    if (list.length === 0) return;
    const input = { actor: celActor(identity), now: this.options.clock.now(), ...values };
    for (const rule of list)
      if (!rule.evaluate(input)) throw RecordsErrors.abacDenied(operation, schema.path, rule.rule.message);
  }

  private rulesOf(schema: CompiledSchema): SchemaRules {
    let rules = this.compiled.get(schema);
    if (rules) return rules;
    const empty = () =>
      ({ create: [], read: [], update: [], delete: [] }) as Record<Operation, CompiledRule[]>;
    rules = {
      before: empty(),
      onRecord: empty(),
      session: hasRowSecurity(schema.definition),
      views: new Map(),
    };
    for (const rule of schema.definition.access.abac) {
      const compiled = compileRule(rule);
      (compiled.needsRecord ? rules.onRecord : rules.before)[rule.operation].push(compiled);
    }
    this.compiled.set(schema, rules);
    return rules;
  }
}
