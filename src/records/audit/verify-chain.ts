import type { HistoryRowHash } from '../history/history-repository.js';
import type { ChainLink } from './audit-repository.js';
import type { AnchorLookup } from './anchor-store.js';

/** Why an event, a history row or an anchor fails verification. */
export type TamperReason =
  /** The event's stored hash is not the hash of its content: the event was edited. */
  | 'hash_mismatch'
  /** Its `previous_hash` is not the hash of the event before it: deletion, insertion, reordering. */
  | 'chain_broken'
  /** The history row the event covers is gone. */
  | 'history_missing'
  /** The history row the event covers does not hash to what the event recorded: it was edited. */
  | 'history_mismatch'
  /** A history row no event of the chain covers: inserted, or its event was removed. */
  | 'history_unlinked'
  /** The anchored event has another hash than the signed checkpoint says: the chain was rewritten. */
  | 'anchor_mismatch'
  /** The anchored event is gone. */
  | 'anchor_missing'
  /** The anchor file itself fails its checks (signature, sequence, link, length). */
  | 'anchor_store_invalid'
  /** An event's values are marked erased, but no ERASE event follows it in the chain. */
  | 'erased_without_record';

/** One finding of verify: the audit event (and record version) or history row it concerns. */
export interface Tampered {
  reason: TamperReason;
  event_id: number | null;
  version: number | null;
  history_event_id?: number;
  detail?: string;
}

/** How the chain compares with the signed anchors kept outside the database. */
export type AnchorCheck =
  | { status: 'not_configured'; note: string }
  | { status: 'not_yet_anchored'; note: string }
  | { status: 'match' | 'mismatch' | 'missing'; checkpoint: number; event_id: number; anchored_at: string }
  | { status: 'store_invalid'; problem: string };

/** The audit verification result of the spec, with what was found and the anchor comparison. */
export interface ChainVerification {
  valid: boolean;
  events: number;
  tampering_detected: number;
  tampered: Tampered[];
  /** Whether a signed anchor vouched for (or contradicted) the chain. */
  anchored: boolean;
  anchor: AnchorCheck;
  /** History rows older than the record's first event that covers one (written before 0014). */
  legacy_history_rows?: number;
  /** Events whose values were erased: their links are checked, their content cannot be. */
  erased?: { event_id: number; erased_at: string }[];
}

/** What verify compares the chain with besides itself. */
export interface VerifyInputs {
  /** The record's hot history rows (time-machine schemas only). */
  history?: HistoryRowHash[];
  /** Archived history rows the chain covers that are not in hot storage. */
  archivedHistory?: HistoryRowHash[];
  /** The anchor store's answer; undefined when no signing key is configured. */
  anchor?: AnchorLookup;
}

const notConfigured =
  'RECORDS_AUDIT_SIGNING_KEY is not set: the chain is not anchored, so a rewrite that recomputes every hash is not detected';

/**
 * Walks a chain in event order and reports every event whose hash does not match its content or
 * whose `previous_hash` is not the hash of the event before it; every history row the chain
 * covers that is missing or changed, and every history row it does not cover (except legacy
 * rows); and whether the newest signed anchor of the record still matches the chain.
 */
export function verifyChain(links: ChainLink[], inputs: VerifyInputs = {}): ChainVerification {
  const tampered: Tampered[] = [];
  const history = new Map(
    [...(inputs.archivedHistory ?? []), ...(inputs.history ?? [])].map((row) => [row.event_id, row.hash]),
  );
  const covered = new Set<string>();
  const erased: { event_id: number; erased_at: string }[] = [];
  const lastErasure = links.findLastIndex((link) => link.operation === 'ERASE');
  let previous = '';
  for (const [index, link] of links.entries()) {
    const at = { event_id: Number(link.event_id), version: link.version };
    const historyId = link.history_event_id;
    if (historyId !== null) covered.add(historyId);
    if (link.erased_at !== null) {
      // Erased values cannot be hashed again; the event must still link, and an ERASE event after
      // it must record the erasure.
      erased.push({ event_id: at.event_id, erased_at: link.erased_at });
      if (link.previous_hash !== previous) tampered.push({ reason: 'chain_broken', ...at });
      else if (index > lastErasure) tampered.push({ reason: 'erased_without_record', ...at });
      previous = link.hash;
      continue;
    }
    if (link.hash !== link.recomputed) tampered.push({ reason: 'hash_mismatch', ...at });
    else if (link.previous_hash !== previous) tampered.push({ reason: 'chain_broken', ...at });
    else if (historyId !== null && inputs.history !== undefined) {
      const hash = history.get(historyId);
      const row = { history_event_id: Number(historyId) };
      if (hash === undefined) tampered.push({ reason: 'history_missing', ...at, ...row });
      else if (hash !== link.history_hash) tampered.push({ reason: 'history_mismatch', ...at, ...row });
    }
    previous = link.hash;
  }
  const legacy = legacyRowsBefore(links);
  let legacyRows = 0;
  for (const row of inputs.history ?? []) {
    if (covered.has(row.event_id)) continue;
    if (legacy === 'all' || (legacy !== undefined && BigInt(row.event_id) < legacy)) legacyRows += 1;
    else
      tampered.push({
        reason: 'history_unlinked',
        event_id: null,
        version: null,
        history_event_id: Number(row.event_id),
      });
  }
  const anchor = checkAnchor(links, inputs.anchor);
  if (anchor.finding) tampered.push(anchor.finding);
  return {
    valid: tampered.length === 0,
    events: links.length,
    tampering_detected: tampered.length,
    tampered,
    anchored: anchor.check.status !== 'not_configured' && anchor.check.status !== 'not_yet_anchored',
    anchor: anchor.check,
    ...(legacyRows > 0 ? { legacy_history_rows: legacyRows } : {}),
    ...(erased.length > 0 ? { erased } : {}),
  };
}

/**
 * History rows below this id may predate history joining the chain: the chain starts with an
 * event that covers no row (written before migration 0014), and the row is older than the first
 * row any event covers (`all` when none does). Undefined when the chain covers history from its
 * first event.
 */
function legacyRowsBefore(links: ChainLink[]): bigint | 'all' | undefined {
  const first = links[0];
  if (first === undefined || first.history_event_id !== null) return undefined;
  const linked = links.find((link) => link.history_event_id !== null)?.history_event_id;
  return linked === undefined || linked === null ? 'all' : BigInt(linked);
}

function checkAnchor(
  links: ChainLink[],
  lookup: AnchorLookup | undefined,
): { check: AnchorCheck; finding?: Tampered } {
  if (lookup === undefined) return { check: { status: 'not_configured', note: notConfigured } };
  if (!lookup.intact)
    return {
      check: { status: 'store_invalid', problem: lookup.problem },
      finding: { reason: 'anchor_store_invalid', event_id: null, version: null, detail: lookup.problem },
    };
  const { head } = lookup;
  if (head === undefined)
    return {
      check: {
        status: 'not_yet_anchored',
        note: 'no signed checkpoint covers this record yet (anchoring runs periodically)',
      },
    };
  const link = links.find((candidate) => candidate.event_id === head.eventId);
  const common = { checkpoint: head.seq, event_id: Number(head.eventId), anchored_at: head.at };
  if (link === undefined)
    return {
      check: { status: 'missing', ...common },
      finding: { reason: 'anchor_missing', event_id: Number(head.eventId), version: null },
    };
  if (link.hash !== head.hash)
    return {
      check: { status: 'mismatch', ...common },
      finding: { reason: 'anchor_mismatch', event_id: Number(head.eventId), version: link.version },
    };
  return { check: { status: 'match', ...common } };
}
