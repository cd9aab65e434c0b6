import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { DuckEngine, DuckTimeoutError } from '../../src/records/archive/files/duck-engine.js';
import { recordsErrorCatalogue } from '../../src/records/errors.js';

// Sums a hundred billion numbers: minutes of work, unless interrupted.
const endless = `SELECT sum(i % 7) AS total FROM range(100000000000) t(i)`;

describe('DuckDB work for a request is bounded like a statement', () => {
  const engine = new DuckEngine();
  after(() => engine.close());

  test(
    'past the limit the query is interrupted with DuckTimeoutError; the engine goes on serving',
    { timeout: 30_000 },
    async () => {
      const bounded = engine.withTimeout(50);
      const started = Date.now();
      await assert.rejects(bounded.rows(endless), (error: unknown) => {
        assert.ok(error instanceof DuckTimeoutError);
        assert.equal(error.timeoutMs, 50);
        return true;
      });
      assert.ok(Date.now() - started < 10_000, `interrupted promptly (${Date.now() - started} ms)`);
      // Quick work under the same limit, and unbounded work on the shared database, still answer.
      assert.deepEqual(await bounded.rows(`SELECT 42 AS answer`), [{ answer: 42 }]);
      assert.deepEqual(await engine.rows(`SELECT count(*)::INTEGER AS n FROM range(1000)`), [{ n: 1000 }]);
    },
  );

  test('a limit of 0 is none, and an error of the query itself is not a timeout', async () => {
    await assert.rejects(engine.withTimeout(0).rows(`SELECT * FROM no_such_table`), (error: unknown) => {
      assert.ok(!(error instanceof DuckTimeoutError));
      return true;
    });
  });

  test('the records service answers it as the statement timeout: 503 POSTGRES_UNAVAILABLE', () => {
    const answer = recordsErrorCatalogue.fromError?.(new DuckTimeoutError(50));
    assert.equal(answer?.statusCode, 503);
    assert.equal(answer?.code, 'POSTGRES_UNAVAILABLE');
  });
});
