import type { LoadResult } from './load.js';

/** A subject measured against its floor in alternating slices. */
export interface Interleaved<T> {
  /** The floor's slices, in order. */
  floors: T[];
  /** The subject's slices, in order. */
  subjects: T[];
  /** subject / floor throughput of each round. */
  ratios: number[];
  /** The median of `ratios`: the figure the benchmarks compare with their targets. */
  ratio: number;
}

/** {@link interleave} over load runs, with each side's slices combined. */
export interface InterleavedResult extends Interleaved<LoadResult> {
  /** The floor's figures, averaged over the slices (p50 and p99: the median slice's). */
  floor: LoadResult;
  /** The subject's figures, likewise. */
  subject: LoadResult;
}

/**
 * Measures `subject` against `floor` in `rounds` back-to-back pairs of short slices, alternating
 * which goes first (floor–subject, subject–floor, …). On a shared machine the load drifts over
 * seconds; one long floor run then one long subject run measure two different machines, while
 * each round's pair sees nearly the same one. The median of the per-round ratios ignores a round
 * that a burst of other work hit.
 */
export async function interleave<T>(
  rounds: number,
  floor: () => Promise<T>,
  subject: () => Promise<T>,
  throughput: (slice: T) => number,
): Promise<Interleaved<T>> {
  const floors: T[] = [];
  const subjects: T[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      floors.push(await floor());
      subjects.push(await subject());
    } else {
      subjects.push(await subject());
      floors.push(await floor());
    }
  }
  const ratios = floors.map((slice, index) => {
    const other = subjects[index];
    return other === undefined ? 0 : throughput(other) / throughput(slice);
  });
  return { floors, subjects, ratios, ratio: median(ratios) };
}

/** {@link interleave} for load runs. */
export async function interleaveLoad(
  rounds: number,
  floor: () => Promise<LoadResult>,
  subject: () => Promise<LoadResult>,
): Promise<InterleavedResult> {
  const result = await interleave(rounds, floor, subject, (slice) => slice.requestsPerSecond);
  return { ...result, floor: combine(result.floors), subject: combine(result.subjects) };
}

/** The median of `values` (0 for none). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function combine(results: LoadResult[]): LoadResult {
  const mean = (pick: (result: LoadResult) => number) =>
    results.reduce((sum, result) => sum + pick(result), 0) / results.length;
  const sum = (pick: (result: LoadResult) => number) =>
    results.reduce((total, result) => total + pick(result), 0);
  return {
    requestsPerSecond: mean((result) => result.requestsPerSecond),
    p50Ms: median(results.map((result) => result.p50Ms)),
    p99Ms: median(results.map((result) => result.p99Ms)),
    errors: sum((result) => result.errors),
    non2xx: sum((result) => result.non2xx),
  };
}
