import type { Pool } from '../../platform/database/pool.js';
import type { Queryable } from '../../platform/database/queryable.js';
import { parseExactJson, stringifyExactJson } from '../../platform/json/exact-json.js';
import { RecordsErrors } from '../errors.js';
import type { CursorCodec } from '../records/cursor.js';
import { getRecord } from '../records/record-repository.js';
import { selectRecords, type RecordPage } from '../records/select-records.js';
import type { SelectPlan } from '../records/select-plan.js';
import { statement } from '../records/statement.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity } from '../types.js';
import { checkPlanFields, type AccessControl, type IncludePlan } from './access-control.js';
import { withAccessSession } from './access-session.js';
import { hiddenFields, maskRecord } from './field-access.js';
import { statementSession } from './statement-session.js';

/**
 * Reads records as a caller, through the access policy (`AccessControl`): the read layers decide
 * what each statement may see, this runs the statements on the runtime pool (in the caller's access
 * session when a schema has row security, layer 7) and applies the layers that act on what was read.
 */
export class RecordReader {
  constructor(
    private readonly pool: Pool,
    /** The policy every read goes through. */
    readonly access: AccessControl,
  ) {}

  /** Runs read statements as the caller: in an access session when a schema has row security. */
  read<T>(identity: Identity, schemas: CompiledSchema[], work: (db: Queryable) => Promise<T>): Promise<T> {
    return this.access.needsSession(...schemas)
      ? withAccessSession(this.pool, identity, work)
      : work(this.pool);
  }

  /** GET by id through every read layer; undefined when the caller cannot see the record. */
  async readOne(
    identity: Identity,
    schema: CompiledSchema,
    id: string,
    includes: IncludePlan[] = [],
  ): Promise<{ json: string | undefined; included?: string }> {
    const { access, pool } = this;
    access.authorizeIncludes(identity, includes);
    access.checkBefore(identity, schema, 'read');
    const recordRules = access.hasRecordReadRules(schema);
    const view = access.view(identity, schema, { mask: !recordRules });
    if (includes.length === 0 && access.needsSession(schema)) {
      // One round trip instead of three (BEGIN + settings, the read, COMMIT), the read prepared once
      // per connection (see statement-session.ts).
      const json = await getRecord(statementSession(pool, identity), view, id);
      if (json === undefined) return { json: undefined };
      return { json: access.finishRecords(identity, schema, [json])[0] };
    }
    return this.read(identity, [schema, ...includes.map((plan) => plan.target)], async (db) => {
      const json = await getRecord(db, view, id);
      if (json === undefined) return { json };
      const [finished] = access.finishRecords(identity, schema, [json]);
      const included = await this.loadIncluded(db, identity, includes, [finished ?? json]);
      return { json: finished, ...(included !== undefined ? { included } : {}) };
    });
  }

  /** A list or query page through every read layer (`options.table`: a snapshot of the schema). */
  async readPage(
    identity: Identity,
    schema: CompiledSchema,
    plan: SelectPlan,
    cursors: CursorCodec,
    includes: IncludePlan[] = [],
    options: { table?: string } = {},
  ): Promise<{ page: RecordPage; included?: string }> {
    const { access, pool } = this;
    access.authorizeIncludes(identity, includes);
    access.checkBefore(identity, schema, 'read');
    checkPlanFields(identity, schema, plan);
    const recordRules = access.hasRecordReadRules(schema);
    const schemaView = access.view(identity, schema, { mask: !recordRules });
    // A snapshot table has the schema's columns: the same view reads it.
    const view = options.table !== undefined ? { ...schemaView, table: options.table } : schemaView;
    // Record rules see whole records: a projection is then made here, after them.
    const { select, ...unprojected } = plan;
    const run = recordRules ? unprojected : plan;
    const schemas = [schema, ...includes.map((include) => include.target)];
    // Without includes a page is one statement (two when an empty offset page counts): each can
    // carry the session settings in its own round trip.
    const read =
      includes.length === 0 && access.needsSession(schema)
        ? <T>(work: (db: Queryable) => Promise<T>) => work(statementSession(pool, identity))
        : <T>(work: (db: Queryable) => Promise<T>) => this.read(identity, schemas, work);
    return read(async (db) => {
      const page = await selectRecords(db, view, run, cursors);
      page.rows = access.finishRecords(identity, schema, page.rows);
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
    const { access } = this;
    access.checkBefore(identity, schema, 'read');
    const recordRules = access.hasRecordReadRules(schema);
    const view = access.view(identity, schema, { mask: false });
    if (view.rowFilter === undefined && !access.needsSession(schema) && !recordRules) return;
    const filter = view.rowFilter !== undefined ? ` AND ${view.rowFilter}` : '';
    const { rows } = await db.query<{ j: string | null }>(
      statement(
        `SELECT ${recordRules ? `${view.recordJson}::text` : 'NULL'} AS j FROM ${schema.table} WHERE id = $1${filter}`,
        [id],
      ),
    );
    if (!rows[0]) throw RecordsErrors.entityNotFound(schema.path, id);
    if (recordRules && rows[0].j !== null)
      access.checkRecord(identity, schema, 'read', JSON.parse(rows[0].j) as Record<string, unknown>);
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
    const { access } = this;
    if (!access.hasRecordReadRules(schema) || ids.length === 0) return new Set();
    const { rows } = await db.query<{ id: string; j: string }>(
      statement(
        `SELECT id::text AS id, ${schema.recordJson}::text AS j FROM ${schema.table} WHERE id = ANY($1::uuid[])`,
        [ids],
      ),
    );
    const allowed = new Set(
      rows
        .filter((row) => access.allowsRecord(identity, schema, JSON.parse(row.j) as Record<string, unknown>))
        .map((row) => row.id),
    );
    return new Set(ids.filter((id) => !allowed.has(id)));
  }

  private async loadIncluded(
    db: Queryable,
    identity: Identity,
    includes: IncludePlan[],
    rows: string[],
  ): Promise<string | undefined> {
    if (includes.length === 0) return undefined;
    const { access } = this;
    const parsed = rows.map((json) => JSON.parse(json) as Record<string, unknown>);
    const members: string[] = [];
    for (const { field, target } of includes) {
      const ids = [
        ...new Set(parsed.map((row) => row[field]).filter((id): id is string => typeof id === 'string')),
      ];
      let records: string[] = [];
      if (ids.length > 0) {
        const recordRules = access.hasRecordReadRules(target);
        const view = access.view(identity, target, { mask: !recordRules });
        const filter = view.rowFilter !== undefined ? ` AND ${view.rowFilter}` : '';
        const { rows: found } = await db.query<{ j: string }>(
          statement(
            `SELECT ${view.recordJson}::text AS j FROM ${view.table} WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL${filter} ORDER BY id`,
            [ids],
          ),
        );
        try {
          records = access.finishRecords(
            identity,
            target,
            found.map((row) => row.j),
          );
        } catch {
          throw RecordsErrors.crossSchemaDenied(field, target.path);
        }
      }
      members.push(`${JSON.stringify(field)}:[${records.join(',')}]`);
    }
    return `{${members.join(',')}}`;
  }
}
