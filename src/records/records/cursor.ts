import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { RecordsErrors } from '../errors.js';

/**
 * Opaque, signed keyset cursors. A cursor carries the sort values of the last row it stands after;
 * its signature covers those values and the text of the query it belongs to (schema, conditions,
 * parameters, sort, select), so a cursor from another query, or altered in any byte, is a 400.
 */
export class CursorCodec {
  private readonly key: KeyObject;

  constructor(key: Buffer) {
    this.key = createSecretKey(key);
  }

  /** Encodes the position after a row; `valuesJson` is the JSON array of its sort values. */
  encode(query: string, valuesJson: string): string {
    const payload = Buffer.from(valuesJson, 'utf8').toString('base64url');
    return `${payload}.${this.sign(query, payload)}`;
  }

  /** The sort values of a cursor issued for `query`, or 400. */
  decode(cursor: string, query: string, keyCount: number): unknown[] {
    const invalid = () =>
      RecordsErrors.validation('The cursor is invalid or belongs to another query', [
        { field: 'cursor', reason: 'is invalid or belongs to another query' },
      ]);
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined || cursor.length > 4096) throw invalid();
    const expected = Buffer.from(this.sign(query, payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
    let values: unknown;
    try {
      values = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (!Array.isArray(values) || values.length !== keyCount) throw invalid();
    return values as unknown[];
  }

  // One HMAC binds the values to the query: the query text is JSON (no raw newline), the payload
  // base64url, so the newline between them cannot be forged from either side.
  private sign(query: string, payload: string): string {
    return createHmac('sha256', this.key)
      .update(query)
      .update('\n')
      .update(payload)
      .digest('base64url')
      .slice(0, 22);
  }
}
