import { WorkflowErrors } from '../errors.js';

/** A position in a list ordered by a time and an id, both descending. */
export interface ListPosition {
  at: string;
  id: string;
}

const shape = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([0-9a-f-]{36})$/;

/** The opaque `cursor` for a position (what `X-Next-Cursor` carries). */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(`${position.at}|${position.id}`).toString('base64url');
}

/** The position a `cursor` names; a cursor the API did not hand out is a 400. */
export function decodeCursor(cursor: string): ListPosition {
  const match = shape.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw WorkflowErrors.validation('cursor is not a cursor this API handed out (X-Next-Cursor)');
  return { at: match[1]!, id: match[2]! };
}
