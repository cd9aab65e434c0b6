import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import { countOpenInstances, type OpenInstanceCount } from '../engine/store/process-instances.js';

/** How long one count of open instances serves scrapes before the next scrape counts again. */
export const instanceGaugeMaxAgeMs = 15_000;

/**
 * `weft_process_instances_open{org_id, process_key, state}`: running and incident instances per org
 * and key (the spec's "instance counts"). A scrape older than 15 s since the last count runs one
 * grouped query on a partial index that holds only open instances (migration 0018); scrapes in
 * between, however many, are answered from that count. Read from the database rather than kept in
 * memory, so every service process sharing it reports the same numbers; a scrape while the
 * database is unreachable shows the last count.
 */
export function registerInstanceGauges(
  registry: Registry,
  pool: Pool,
  clock: Clock,
  maxAgeMs = instanceGaugeMaxAgeMs,
): void {
  let countedAt = Number.NEGATIVE_INFINITY;
  let counting: Promise<OpenInstanceCount[] | undefined> | undefined;
  let last: OpenInstanceCount[] = [];
  const refresh = async (): Promise<OpenInstanceCount[]> => {
    const now = clock.now().getTime();
    if (now - countedAt >= maxAgeMs) {
      counting ??= countOpenInstances(pool)
        .catch(() => undefined)
        .finally(() => (counting = undefined));
      const rows = await counting;
      if (rows) {
        last = rows;
        countedAt = now;
      }
    }
    return last;
  };
  new Gauge({
    name: 'weft_process_instances_open',
    help: 'Running and incident process instances per org and key (counted at most every 15 s)',
    labelNames: ['org_id', 'process_key', 'state'],
    registers: [registry],
    async collect() {
      const rows = await refresh();
      this.reset();
      for (const row of rows)
        this.set({ org_id: row.org_id, process_key: row.process_key, state: row.state }, Number(row.count));
    },
  });
}
