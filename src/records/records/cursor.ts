import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { RecordsErrors } from '../errors.js';

/**
 * Opaque, signed keyset cursors. A cursor carries the sort values of the last row it stands after,
 * and a fingerprint of the query it belongs to; a cursor from another query, or altered in any
 * byte, is a 400.
 */
export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  /** Fingerprint of a query: schema, conditions, parameters and sort. */
  static fingerprint(parts: unknown): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
  }

  /** Encodes the position after a row. */
  encode(fingerprint: string, values: unknown[]): string {
    const payload = Buffer.from(JSON.stringify({ f: fingerprint, v: values })).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  /** The sort values of a cursor issued for `fingerprint`, or 400. */
  decode(cursor: string, fingerprint: string, keyCount: number): unknown[] {
    const invalid = () =>
      RecordsErrors.validation('The cursor is invalid or belongs to another query', [
        { field: 'cursor', reason: 'is invalid or belongs to another query' },
      ]);
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined || cursor.length > 4096) throw invalid();
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    const { f, v } = (decoded ?? {}) as { f?: unknown; v?: unknown };
    if (f !== fingerprint || !Array.isArray(v) || v.length !== keyCount) throw invalid();
    return v as unknown[];
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 22);
  }
}
