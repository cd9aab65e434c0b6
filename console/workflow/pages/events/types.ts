/** `POST /api/v1/messages`: the instances started and correlated, or where the message waits. */
export interface MessageOutcome {
  started: string[];
  correlated: string[];
  buffered: { id: string; expires_at: string } | null;
}

/** `POST /api/v1/signals`: the instances started and the instances the signal reached. */
export interface SignalOutcome {
  started: string[];
  delivered: string[];
}
