import { LeaderElection, type LeaderElectionOptions } from '../../platform/jobs/leader-election.js';

/** The name of the timer leadership's row in `leader_lease`. */
export const timerLeaderLeaseName = 'timers';

/**
 * The election of the instance that fires timers and runs housekeeping: the lease `timers`, shown as
 * `weft-timer-leader` in pg_stat_activity and as the "timer leader" in logs.
 */
export function timerLeaderElection(
  options: Omit<LeaderElectionOptions, 'leaseName' | 'role' | 'applicationName'>,
): LeaderElection {
  return new LeaderElection({
    ...options,
    leaseName: timerLeaderLeaseName,
    role: 'timer',
    applicationName: 'weft-timer-leader',
  });
}
