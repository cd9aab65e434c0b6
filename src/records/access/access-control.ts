import type { Clock } from '../../platform/clock.js';
import { findInexactNumbers, replaceRootMembers } from '../../platform/json/inexact-numbers.js';
import { roleAccessCheck, type AccessCheck } from '../auth/access-check.js';
import { RecordsErrors } from '../errors.js';
import type { Condition, SelectPlan } from '../records/select-plan.js';
import { columnJsonSql, jsonObjectSql, type CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity, Operation } from '../types.js';
import { celActor, compileRule, type CompiledRule } from './cel-rules.js';
import { checkFieldWrites, hiddenFields, maskRecord } from './field-access.js';
import { hasRowSecurity } from './rls-ddl.js';
import { rowFilterSql } from './row-filter.js';

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
 * The access policy of the records service: its seven layers, in the spec's order of concern:
 * route RBAC, ABAC (CEL), cross-schema RBAC for `include`, row filters (SQL folded into every
 * statement), the field read filter (masked in the JSON Postgres builds), the field write filter,
 * and row-level security (requests on schemas with row filters run as `weft_records_api` with the
 * caller in transaction settings, see access-session.ts). It decides and compiles, it runs no
 * statement: `RecordReader` (record-reader.ts) reads through it, `guardWrite` (write-guard.ts)
 * guards writes with it.
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
   * Layer 2's rules of `operation` that need the stored record, on a record read elsewhere (the
   * locked row of a write, an archived copy), with `request` the write's payload when there is one:
   * 403 ABAC_DENIED unless all hold.
   */
  checkRecord(
    identity: Identity,
    schema: CompiledSchema,
    operation: Operation,
    record: Record<string, unknown>,
    request?: Record<string, unknown>,
  ): void {
    this.evaluate(identity, schema, operation, true, { record, ...(request ? { request } : {}) });
  }

  /** True when the schema has read rules that need the stored record. */
  hasRecordReadRules(schema: CompiledSchema): boolean {
    return this.hasRecordRules(schema, 'read');
  }

  /** True when the schema has rules of `operation` that need the stored record. */
  hasRecordRules(schema: CompiledSchema, operation: Operation): boolean {
    return this.rulesOf(schema).onRecord[operation].length > 0;
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
