import type { Pool } from '../../platform/database/pool.js';
import { searchConfig, searchFields, visibleSearchSql } from '../ddl/search-columns.js';
import { mapRecordError } from '../records/database-errors.js';
import type { Queryable } from '../../platform/database/queryable.js';
import { renderCondition } from '../records/select-records.js';
import { SqlParams, statement } from '../records/statement.js';
import { quoteIdent } from '../schemas/identifiers.js';
import type { OrgHit, SchemaSearch, SearchBackend, SearchPage, SearchScope } from './search-backend.js';

// word_similarity at or above this counts as a typo-tolerant match (pg_trgm's own default is 0.6).
const typoThreshold = 0.45;

/**
 * The match condition and score. A caller who may not read some searchable fields matches on
 * expressions over the others, computed per row (the stored columns, and their indexes, cover
 * the hidden text too); with none left, nothing matches.
 */
function matchSql(
  { schema, hidden }: SearchScope,
  params: SqlParams,
  q: string,
): { where: string; score: string } {
  const visible = visibleSearchSql(schema.definition, hidden);
  if (visible && visible.vector === undefined) return { where: 'false', score: '0' };
  const vector = visible?.vector ?? '_search_vector';
  const text = visible?.text ?? '_search_text';
  const query = `websearch_to_tsquery('${searchConfig}', ${params.add(q, 'text')})`;
  if (schema.definition.searchTier < 3)
    return { where: `${vector} @@ ${query}`, score: `ts_rank_cd(${vector}, ${query})` };
  const lowered = params.add(q.toLowerCase(), 'text');
  return {
    where: `(${vector} @@ ${query} OR word_similarity(${lowered}, ${text}) >= ${typoThreshold})`,
    score: `(ts_rank_cd(${vector}, ${query}) + word_similarity(${lowered}, ${text}))`,
  };
}

/**
 * Search in Postgres: tier 2 matches `websearch_to_tsquery` against the weighted tsvector and ranks
 * by `ts_rank_cd`; tier 3 also accepts near matches by trigram word similarity and scores
 * `ts_rank_cd + word_similarity`.
 */
export class PostgresSearch implements SearchBackend {
  constructor(private readonly pool: Pool) {}

  async search(scope: SearchScope, query: SchemaSearch, db: Queryable = this.pool): Promise<SearchPage> {
    const { schema } = scope;
    const params = new SqlParams();
    const match = matchSql(scope, params, query.q);
    const conditions = [
      'deleted_at IS NULL',
      ...(schema.rowFilter !== undefined ? [schema.rowFilter] : []),
      match.where,
      ...query.where.map((c) => renderCondition(c, params)),
    ];
    const order = [
      ...query.sort.map((key) =>
        'textMatch' in key
          ? `_text_match ${key.descending ? 'DESC' : 'ASC'}`
          : `${quoteIdent(key.column.name)} ${key.descending ? 'DESC' : 'ASC'}`,
      ),
      ...(query.sort.length === 0 ? ['_text_match DESC'] : []),
      'id',
    ];
    const text = `SELECT (${schema.recordJson}::jsonb || jsonb_build_object('_text_match', round(_text_match::numeric, 6)))::text AS j, count(*) OVER () AS total
      FROM (SELECT *, ${match.score} AS _text_match FROM ${schema.table} WHERE ${conditions.join(' AND ')}) AS hits
      ORDER BY ${order.join(', ')} LIMIT ${query.limit}`;
    try {
      const { rows } = await db.query<{ j: string; total: string }>(statement(text, params.values));
      return { hits: rows.map((row) => row.j), totalHits: rows[0] ? Number(rows[0].total) : 0 };
    } catch (error) {
      throw mapRecordError(schema, error);
    }
  }

  async searchOrg(
    scopes: SearchScope[],
    q: string,
    limit: number,
    db: Queryable = this.pool,
  ): Promise<OrgHit[]> {
    const params = new SqlParams();
    const parts = scopes
      .filter(({ schema }) => searchFields(schema.definition).length > 0)
      .map((scope) => {
        const { schema, hidden } = scope;
        const match = matchSql(scope, params, q);
        const fields = searchFields(schema.definition)
          .map(
            (field) =>
              `${params.add(field.name, 'text')}, ${hidden.has(field.name) ? 'NULL' : quoteIdent(field.name)}`,
          )
          .join(', ');
        const record = scope.record ? `${schema.recordJson}::jsonb` : 'NULL::jsonb';
        const rowFilter = schema.rowFilter !== undefined ? ` AND ${schema.rowFilter}` : '';
        return `(SELECT ${params.add(schema.path, 'text')} AS schema, id::text AS id, jsonb_build_object(${fields}) AS fields, ${match.score} AS score, ${record} AS record
          FROM ${schema.table} WHERE deleted_at IS NULL${rowFilter} AND ${match.where} ORDER BY score DESC LIMIT ${limit})`;
      });
    if (parts.length === 0) return [];
    const { rows } = await db.query<OrgHit & { record: Record<string, unknown> | null }>(
      statement(
        `SELECT * FROM (${parts.join(' UNION ALL ')}) AS hits ORDER BY score DESC, schema, id LIMIT ${limit}`,
        params.values,
      ),
    );
    return rows.map(({ record, ...row }) => ({
      ...row,
      score: Number(row.score),
      ...(record !== null ? { record } : {}),
    }));
  }
}
