import type { Environment } from '../cel-engine/index.js';
import { durationText, timestampText, type Duration } from './cel-values.js';

const TS = 'google.protobuf.Timestamp';
const DURATION = 'google.protobuf.Duration';

/**
 * Registers the conversions of timestamps and durations that cel-spec lists and cel-js lacks:
 * `int(timestamp)` (Unix seconds), `string(timestamp)` (RFC 3339), `string(duration)` (`"90s"`),
 * and the identities `timestamp(timestamp)` and `duration(duration)`.
 */
export function registerTimeConversions(env: Environment): Environment {
  return env
    .registerFunction(`int(${TS}): int`, (value: Date) => BigInt(Math.floor(value.getTime() / 1000)))
    .registerFunction(`string(${TS}): string`, timestampText)
    .registerFunction(`string(${DURATION}): string`, (value: Duration) => durationText(value))
    .registerFunction(`timestamp(${TS}): ${TS}`, (value: Date) => value)
    .registerFunction(`duration(${DURATION}): ${DURATION}`, (value: Duration) => value);
}
