import { createHash } from 'node:crypto';
import type { Ed25519Signer } from '../../platform/crypto/ed25519-signer.js';

/**
 * A signed checkpoint of the audit chains: one line of the append-only anchor file
 * (docs/records/audit.md, "Anchors"). `heads` are `[schema, entity_id, event_id, hash]` of the
 * chains that gained events in the window `(from, up_to_event_id]`; `previous` is the SHA-256 of
 * the line before (empty for the first), so lines cannot be removed or reordered unseen.
 */
export interface Checkpoint {
  v: 1;
  seq: number;
  at: string;
  key_id: string;
  previous: string;
  /** Where the next run's window starts (exclusive): the previous run's end, so it overlaps. */
  next_from: string;
  up_to_event_id: string;
  heads: [schema: string, entityId: string, eventId: string, hash: string][];
}

/** The bytes a checkpoint's signature covers: its JSON with keys in this fixed order. */
function signedText(checkpoint: Checkpoint): string {
  const { v, seq, at, key_id, previous, next_from, up_to_event_id, heads } = checkpoint;
  return JSON.stringify({ v, seq, at, key_id, previous, next_from, up_to_event_id, heads });
}

/** SHA-256 hex of a line (without its newline): the `previous` of the line after it. */
export function lineHash(line: string): string {
  return createHash('sha256').update(line, 'utf8').digest('hex');
}

/** The signed line of a checkpoint (no newline). */
export function encodeCheckpoint(checkpoint: Checkpoint, signer: Ed25519Signer): string {
  const text = signedText(checkpoint);
  return `${text.slice(0, -1)},"signature":${JSON.stringify(signer.sign(text))}}`;
}

const hexHash = /^[0-9a-f]{64}$/;
const eventId = /^\d{1,19}$/;

function isHeads(value: unknown): value is Checkpoint['heads'] {
  return (
    Array.isArray(value) &&
    value.every(
      (head) =>
        Array.isArray(head) &&
        head.length === 4 &&
        head.every((part) => typeof part === 'string') &&
        eventId.test(head[2] as string) &&
        hexHash.test(head[3] as string),
    )
  );
}

/**
 * Checks one line against the line before it (`previousLine`, undefined for the first) and the
 * key: shape, sequence, link and signature. Returns the checkpoint, or why it is not one.
 */
export function decodeCheckpoint(
  line: string,
  seq: number,
  previousLine: string | undefined,
  signer: Ed25519Signer,
): Checkpoint | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return 'is not JSON';
  }
  if (typeof parsed !== 'object' || parsed === null) return 'is not a checkpoint';
  const value = parsed as Record<string, unknown>;
  const { signature } = value;
  if (
    value.v !== 1 ||
    typeof value.at !== 'string' ||
    typeof value.key_id !== 'string' ||
    typeof value.previous !== 'string' ||
    typeof value.next_from !== 'string' ||
    !eventId.test(value.next_from) ||
    typeof value.up_to_event_id !== 'string' ||
    !eventId.test(value.up_to_event_id) ||
    !isHeads(value.heads) ||
    typeof signature !== 'string'
  )
    return 'is not a checkpoint';
  const checkpoint = value as unknown as Checkpoint;
  if (checkpoint.seq !== seq) return `has seq ${String(checkpoint.seq)}, expected ${seq}`;
  if (checkpoint.key_id !== signer.keyId) return 'is signed with another key';
  if (checkpoint.previous !== (previousLine === undefined ? '' : lineHash(previousLine)))
    return 'does not follow the line before it';
  if (!signer.verify(signedText(checkpoint), signature)) return 'has a signature that does not verify';
  return {
    v: 1,
    seq,
    at: checkpoint.at,
    key_id: checkpoint.key_id,
    previous: checkpoint.previous,
    next_from: checkpoint.next_from,
    up_to_event_id: checkpoint.up_to_event_id,
    heads: checkpoint.heads,
  };
}
