import type pg from 'pg';

/**
 * Whatever runs a statement: a pool (one statement on any connection), a checked-out client (a
 * transaction) or a wrapper that adds session settings. Repositories take this, never a pool, so
 * the caller decides the transaction.
 */
export type Queryable = Pick<pg.ClientBase, 'query'>;
