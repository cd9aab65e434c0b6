import type { Logger } from '../logging/logger.js';
import type { LeaderElection } from './leader-election.js';

/** Work only the leader does (the workflow service's: the timer executor, housekeeping). */
export interface LeaderDuty {
  start(): void;
  /** Must stop taking new work synchronously; the promise may settle later. */
  stop(): Promise<void>;
}

/** Told whether this instance leads (a metric's gauge). */
export interface LeaderGauge {
  setLeader(isLeader: boolean): void;
}

/**
 * Starts `duties` when `election` elects this instance and stops them the moment it loses (without
 * waiting for their promises, so nothing new starts after `lost`). Sets the leader gauge. Returns a
 * function that detaches and stops them.
 */
export function runWhileLeader(
  election: LeaderElection,
  duties: readonly LeaderDuty[],
  options: { metrics?: LeaderGauge; logger?: Logger } = {},
): () => Promise<void> {
  const stopAll = (): Promise<void> =>
    Promise.all(
      duties.map((duty) =>
        duty
          .stop()
          .catch((error: unknown) => options.logger?.error({ err: error }, 'leader duty failed to stop')),
      ),
    ).then(() => undefined);
  const offElected = election.on('elected', () => {
    options.metrics?.setLeader(true);
    for (const duty of duties) duty.start();
  });
  const offLost = election.on('lost', () => {
    options.metrics?.setLeader(false);
    void stopAll();
  });
  if (election.isLeader) {
    options.metrics?.setLeader(true);
    for (const duty of duties) duty.start();
  }
  return async () => {
    offElected();
    offLost();
    await stopAll();
  };
}
