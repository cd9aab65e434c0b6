import { createHash } from 'node:crypto';
import { pgSchemaName, quoteIdent, quoteLiteral } from '../schemas/identifiers.js';
import { systemFields, type SchemaDefinition } from '../types.js';
import { qualifiedTable, tableName } from './table-ddl.js';

/**
 * Change capture of a schema version: a row trigger on its table writes the audit event (every
 * schema) and the history event (`timeMachine: true`) in the statement that makes the change, so
 * no write path can forget them and a plain write stays one autocommitted statement.
 *
 * The operation is CREATE on insert, DELETE when `deleted_at` becomes set, UPDATE otherwise, and
 * ARCHIVE on a hard delete (the archive job); a transaction may name it instead (RESTORE,
 * UNARCHIVE, and ERASE for a hard delete by erasure, whose event carries no values) with
 * `set_config('weft.operation', …, true)`, and give `weft.reason` and `weft.actor`.
 */

/** The Postgres schema holding an org's history tables (`rec_` names cannot start with `hist_`). */
export function historySchemaName(org: string): string {
  return `hist_${org.replace(/-/g, '_')}`;
}

/** The quoted history table of a schema version. */
export function historyTable(definition: SchemaDefinition): string {
  return `${quoteIdent(historySchemaName(definition.org))}.${quoteIdent(tableName(definition))}`;
}

/** The Postgres schema and name of a schema version's trigger function. */
export function changeFunctionName(definition: SchemaDefinition): { schema: string; name: string } {
  const digest = createHash('sha256').update(tableName(definition)).digest('hex').slice(0, 24);
  return { schema: pgSchemaName(definition.org), name: `changes_${digest}` };
}

function functionName(definition: SchemaDefinition): string {
  const { schema, name } = changeFunctionName(definition);
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

const timestampSystemFields = new Set(['created_at', 'updated_at', 'deleted_at']);

/** SQL building a record's JSON (as the API shows it) from a trigger row variable (`NEW`, `OLD`). */
export function rowJsonSql(definition: SchemaDefinition, row: string): string {
  const pairs: [string, boolean][] = [
    ...systemFields.map((name): [string, boolean] => [name, timestampSystemFields.has(name)]),
    ...definition.fields.map((field): [string, boolean] => [field.name, field.type === 'timestamp']),
  ];
  const value = ([name, timestamp]: [string, boolean]) => {
    const column = `${row}.${quoteIdent(name)}`;
    return timestamp ? `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` : column;
  };
  const chunks: string[] = [];
  for (let start = 0; start < pairs.length; start += 50)
    chunks.push(
      `jsonb_build_object(${pairs
        .slice(start, start + 50)
        .map((pair) => `${quoteLiteral(pair[0])}, ${value(pair)}`)
        .join(', ')})`,
    );
  return chunks.join(' || ');
}

/** The history table of a time-machine schema. */
export function historyTableStatements(definition: SchemaDefinition): string[] {
  const table = historyTable(definition);
  const index = quoteIdent(
    `hx_${createHash('sha256').update(tableName(definition)).digest('hex').slice(0, 24)}`,
  );
  return [
    `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(historySchemaName(definition.org))}`,
    `CREATE TABLE IF NOT EXISTS ${table} (
  event_id bigserial PRIMARY KEY,
  record_id uuid NOT NULL,
  "timestamp" timestamptz NOT NULL,
  actor text NOT NULL,
  operation text NOT NULL,
  old_value jsonb,
  new_value jsonb,
  state jsonb NOT NULL,
  reason text
)`,
    `CREATE INDEX IF NOT EXISTS ${index} ON ${table} (record_id, event_id)`,
  ];
}

/**
 * The trigger function and trigger of a schema version (replaced whenever the definition changes,
 * since the record JSON it builds lists the fields).
 */
export function changeTriggerStatements(definition: SchemaDefinition): string[] {
  const fn = functionName(definition);
  const body = changeFunctionBody(definition);
  return [
    // SECURITY DEFINER: the history and audit rows are written as the table owner, so a request
    // running as the row-level-security role (access layer 7) needs no privilege on them.
    `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $weft$${body}$weft$`,
    `CREATE OR REPLACE TRIGGER record_changes AFTER INSERT OR UPDATE OR DELETE ON ${qualifiedTable(definition)} FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
  ];
}

/** The body of a schema version's trigger function (what `pg_proc.prosrc` holds once created). */
export function changeFunctionBody(definition: SchemaDefinition): string {
  const path = quoteLiteral(definition.path);
  // The history row is written first so the audit event can carry its hash (docs/records/audit.md).
  // Its id is taken before the insert rather than returned by it: RETURNING would need the row to
  // pass the table's read policies too.
  const history = definition.timeMachine
    ? `IF TG_OP <> 'DELETE' THEN
    reason := nullif(current_setting('weft.reason', true), '');
    hist_id := nextval(pg_get_serial_sequence(${quoteLiteral(historyTable(definition))}, 'event_id'));
    INSERT INTO ${historyTable(definition)} (event_id, record_id, "timestamp", actor, operation, old_value, new_value, state, reason)
    VALUES (hist_id, NEW.id, NEW.updated_at, actor, op, old_value, new_value, new_state, reason);
    hist_hash := records.history_row_hash(hist_id, NEW.id, NEW.updated_at, actor, op, old_value, new_value, new_state, reason);
  END IF;`
    : '';
  // A hard delete is the archive job's: the ARCHIVE history row it has just put in cold storage
  // (the newest one after the last row the chain links) is the one this event covers.
  const archived = definition.timeMachine
    ? `SELECT h.event_id, records.history_row_hash(h.event_id, h.record_id, h."timestamp", h.actor, h.operation, h.old_value, h.new_value, h.state, h.reason)
      INTO hist_id, hist_hash
      FROM records_archive.history h
     WHERE h.schema_path = ${path} AND h.record_id = OLD.id AND h.operation = 'ARCHIVE'
       AND h.event_id > coalesce((SELECT max(a.history_event_id) FROM records.audit_events a WHERE a.schema_path = ${path} AND a.entity_id = OLD.id), 0)
     ORDER BY h.event_id DESC LIMIT 1;
    `
    : '';
  return `
DECLARE
  old_state jsonb;
  new_state jsonb;
  old_value jsonb;
  new_value jsonb;
  op text := nullif(current_setting('weft.operation', true), '');
  actor text;
  reason text;
  hist_id bigint;
  hist_hash text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    new_state := ${rowJsonSql(definition, 'NEW')};
    op := coalesce(op, 'CREATE');
    new_value := new_state;
    actor := NEW.updated_by;
  ELSIF TG_OP = 'UPDATE' THEN
    old_state := ${rowJsonSql(definition, 'OLD')};
    new_state := ${rowJsonSql(definition, 'NEW')};
    IF op IS NULL THEN
      op := CASE WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN 'DELETE' ELSE 'UPDATE' END;
    END IF;
    SELECT c.old_value, c.new_value INTO old_value, new_value FROM records.changed_fields(old_state, new_state) AS c;
    actor := NEW.updated_by;
  ELSE
    op := coalesce(op, 'ARCHIVE');
    actor := coalesce(nullif(current_setting('weft.actor', true), ''), 'system:archive');
    IF op = 'ERASE' THEN
      PERFORM records.append_audit(${path}, OLD.id, op, actor, now(), OLD.version, NULL,
        jsonb_build_object('reason', nullif(current_setting('weft.reason', true), '')), NULL, NULL);
      RETURN NULL;
    END IF;
    old_value := ${rowJsonSql(definition, 'OLD')};
    ${archived}PERFORM records.append_audit(${path}, OLD.id, op, actor, now(), OLD.version, old_value, NULL, hist_id, hist_hash);
    RETURN NULL;
  END IF;
  ${history}
  PERFORM records.append_audit(${path}, NEW.id, op, actor, NEW.updated_at, NEW.version, old_value, new_value, hist_id, hist_hash);
  RETURN NULL;
END`;
}

/** Everything change capture needs for a definition: the history table (if any), then the trigger. */
export function changeCaptureStatements(definition: SchemaDefinition): string[] {
  return [
    ...(definition.timeMachine ? historyTableStatements(definition) : []),
    ...changeTriggerStatements(definition),
  ];
}
