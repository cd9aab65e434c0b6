import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  InvalidTimerError,
  parseTimerSchedule,
  timerProblem,
  type TimerKind,
  type TimerSchedule,
} from '../../../src/workflow/engine/schedule/schedule.js';

const at = (iso: string): Date => new Date(iso);
const iso = (date: Date | null): string | null => date?.toISOString() ?? null;
const schedule = (kind: TimerKind, value: string): TimerSchedule => parseTimerSchedule({ kind, value });

/** The first `count` due times of a schedule armed at `from`, following next() as the executor does. */
function series(s: TimerSchedule, from: string, count: number): string[] {
  const out: string[] = [];
  let due = s.first(at(from));
  for (let fired = 1; due !== null && out.length < count; fired++) {
    out.push(due.toISOString());
    due = s.next(due, fired);
  }
  return out;
}

test('timeDate: fires once at the instant, even when already past', () => {
  const s = schedule('date', '2026-03-01T10:15:30Z');
  assert.equal(iso(s.first(at('2026-01-01T00:00:00Z'))), '2026-03-01T10:15:30.000Z');
  assert.equal(iso(s.first(at('2027-01-01T00:00:00Z'))), '2026-03-01T10:15:30.000Z');
  assert.equal(s.next(at('2026-03-01T10:15:30Z'), 1), null);
  assert.equal(s.repetitions, 1);
});

test('timeDate: offsets, fractions, no seconds, no offset (UTC), date alone, white space', () => {
  const cases: [string, string][] = [
    ['2026-03-01T10:15:30+02:00', '2026-03-01T08:15:30.000Z'],
    ['2026-03-01T10:15:30-0130', '2026-03-01T11:45:30.000Z'],
    ['2026-03-01T10:15:30+05', '2026-03-01T05:15:30.000Z'],
    ['2026-03-01T10:15:30.25Z', '2026-03-01T10:15:30.250Z'],
    ['2026-03-01T10:15Z', '2026-03-01T10:15:00.000Z'],
    ['2026-03-01T10:15:30', '2026-03-01T10:15:30.000Z'],
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['  2024-02-29T23:59:59Z \n', '2024-02-29T23:59:59.000Z'],
  ];
  for (const [text, expected] of cases)
    assert.equal(iso(schedule('date', text).first(new Date())), expected, text);
});

test('timeDuration: exact time parts and calendar-correct days, months and years in UTC', () => {
  const cases: [string, string, string][] = [
    ['PT10M', '2026-01-01T00:00:00Z', '2026-01-01T00:10:00.000Z'],
    ['PT1.5H', '2026-01-01T00:00:00Z', '2026-01-01T01:30:00.000Z'],
    ['PT0.5S', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00.500Z'],
    ['PT36H', '2026-01-01T00:00:00Z', '2026-01-02T12:00:00.000Z'],
    ['P1D', '2026-03-28T12:00:00Z', '2026-03-29T12:00:00.000Z'], // a European DST night: still 24 h
    ['P2W', '2026-01-01T00:00:00Z', '2026-01-15T00:00:00.000Z'],
    ['P1M', '2026-01-31T09:00:00Z', '2026-02-28T09:00:00.000Z'],
    ['P1M', '2024-01-31T09:00:00Z', '2024-02-29T09:00:00.000Z'],
    ['P1M', '2026-12-15T00:00:00Z', '2027-01-15T00:00:00.000Z'],
    ['P1Y', '2024-02-29T00:00:00Z', '2025-02-28T00:00:00.000Z'],
    ['P4Y', '2024-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    ['P1Y1M', '2024-01-31T00:00:00Z', '2025-02-28T00:00:00.000Z'],
    ['P1M1D', '2026-01-31T00:00:00Z', '2026-03-01T00:00:00.000Z'],
    ['P1Y2M3DT4H5M6S', '2026-01-01T00:00:00Z', '2027-03-04T04:05:06.000Z'],
    ['PT0S', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['pt5m', '2026-01-01T00:00:00Z', '2026-01-01T00:05:00.000Z'],
  ];
  for (const [text, from, expected] of cases) {
    const s = schedule('duration', text);
    assert.equal(iso(s.first(at(from))), expected, `${text} from ${from}`);
    assert.equal(s.next(at(expected), 1), null);
  }
});

test('cycle R5/PT10M: five firings ten minutes apart, the first ten minutes after arming', () => {
  const s = schedule('cycle', 'R5/PT10M');
  assert.equal(s.repetitions, 5);
  assert.deepEqual(series(s, '2026-01-01T00:00:00Z', 10), [
    '2026-01-01T00:10:00.000Z',
    '2026-01-01T00:20:00.000Z',
    '2026-01-01T00:30:00.000Z',
    '2026-01-01T00:40:00.000Z',
    '2026-01-01T00:50:00.000Z',
  ]);
  assert.equal(schedule('cycle', 'R1/PT1M').next(at('2026-01-01T00:01:00Z'), 1), null);
});

test('cycle R/PT1H is unbounded', () => {
  const s = schedule('cycle', 'R/PT1H');
  assert.equal(s.repetitions, null);
  assert.equal(iso(s.next(at('2026-01-01T00:00:00Z'), 1_000_000)), '2026-01-01T01:00:00.000Z');
});

test('cycle R/start/P1D: fires at the start, then daily; armed later, at the next occurrence', () => {
  const s = schedule('cycle', 'R/2026-01-01T00:00:00Z/P1D');
  assert.deepEqual(series(s, '2025-06-01T00:00:00Z', 3), [
    '2026-01-01T00:00:00.000Z',
    '2026-01-02T00:00:00.000Z',
    '2026-01-03T00:00:00.000Z',
  ]);
  assert.equal(iso(s.first(at('2026-03-10T00:00:00Z'))), '2026-03-10T00:00:00.000Z');
  assert.equal(iso(s.first(at('2026-03-10T00:00:00.001Z'))), '2026-03-11T00:00:00.000Z');
  assert.equal(iso(s.next(at('2026-03-10T07:00:00Z'), 3)), '2026-03-11T00:00:00.000Z');
});

test('cycle anchored monthly series keeps month ends and leap days', () => {
  assert.deepEqual(series(schedule('cycle', 'R/2024-01-31T10:00:00Z/P1M'), '2024-01-01T00:00:00Z', 5), [
    '2024-01-31T10:00:00.000Z',
    '2024-02-29T10:00:00.000Z',
    '2024-03-31T10:00:00.000Z',
    '2024-04-30T10:00:00.000Z',
    '2024-05-31T10:00:00.000Z',
  ]);
  assert.deepEqual(series(schedule('cycle', 'R/2024-02-29T00:00:00Z/P1Y'), '2024-01-01T00:00:00Z', 5), [
    '2024-02-29T00:00:00.000Z',
    '2025-02-28T00:00:00.000Z',
    '2026-02-28T00:00:00.000Z',
    '2027-02-28T00:00:00.000Z',
    '2028-02-29T00:00:00.000Z',
  ]);
  // Far from the anchor the first occurrence is still exact.
  const s = schedule('cycle', 'R/2000-01-31T00:00:00Z/P1M');
  assert.equal(iso(s.first(at('2090-02-15T00:00:00Z'))), '2090-02-28T00:00:00.000Z');
  assert.equal(iso(s.first(at('2090-03-01T00:00:00Z'))), '2090-03-31T00:00:00.000Z');
});

test('cycle Rn/start/duration counts its occurrences from the start, past ones included', () => {
  const s = schedule('cycle', 'R3/2026-01-01T00:00:00Z/PT1H');
  assert.deepEqual(series(s, '2025-12-31T00:00:00Z', 10), [
    '2026-01-01T00:00:00.000Z',
    '2026-01-01T01:00:00.000Z',
    '2026-01-01T02:00:00.000Z',
  ]);
  assert.equal(iso(s.first(at('2026-01-01T01:30:00Z'))), '2026-01-01T02:00:00.000Z');
  assert.equal(s.first(at('2026-01-01T02:00:01Z')), null);
});

test('cycle Rn/duration/end: n intervals ending at end, firing as each begins', () => {
  const s = schedule('cycle', 'R3/PT1H/2026-01-01T00:00:00Z');
  assert.deepEqual(series(s, '2025-01-01T00:00:00Z', 10), [
    '2025-12-31T21:00:00.000Z',
    '2025-12-31T22:00:00.000Z',
    '2025-12-31T23:00:00.000Z',
  ]);
  assert.equal(s.first(at('2025-12-31T23:00:01Z')), null);
  const unbounded = schedule('cycle', 'R/P1D/2026-01-10T00:00:00Z');
  assert.equal(iso(unbounded.first(at('2026-01-05T12:00:00Z'))), '2026-01-06T00:00:00.000Z');
  assert.equal(iso(unbounded.next(at('2026-01-08T00:00:00Z'), 1)), '2026-01-09T00:00:00.000Z');
  assert.equal(unbounded.next(at('2026-01-09T00:00:00Z'), 2), null);
});

test('cycle Rn/start/end repeats the interval between the two instants', () => {
  const s = schedule('cycle', 'R2/2026-01-01T00:00:00Z/2026-01-01T06:00:00Z');
  assert.deepEqual(series(s, '2025-01-01T00:00:00Z', 5), [
    '2026-01-01T00:00:00.000Z',
    '2026-01-01T06:00:00.000Z',
  ]);
});

const cronCases: [string, string, string[]][] = [
  ['*/15 * * * *', '2026-01-01T00:07:00Z', ['2026-01-01T00:15:00.000Z', '2026-01-01T00:30:00.000Z']],
  ['0 9 * * MON-FRI', '2026-01-02T09:00:00Z', ['2026-01-05T09:00:00.000Z', '2026-01-06T09:00:00.000Z']],
  ['0 9 * * mon-fri', '2026-01-02T09:00:00Z', ['2026-01-05T09:00:00.000Z', '2026-01-06T09:00:00.000Z']],
  [
    '30 8-18/4 * * *',
    '2026-01-01T09:00:00Z',
    ['2026-01-01T12:30:00.000Z', '2026-01-01T16:30:00.000Z', '2026-01-02T08:30:00.000Z'],
  ],
  ['0 0 1,15 * *', '2026-01-01T00:00:00Z', ['2026-01-15T00:00:00.000Z', '2026-02-01T00:00:00.000Z']],
  ['0 0 31 * *', '2026-01-31T00:00:00Z', ['2026-03-31T00:00:00.000Z', '2026-05-31T00:00:00.000Z']],
  ['0 12 29 FEB *', '2026-01-01T00:00:00Z', ['2028-02-29T12:00:00.000Z', '2032-02-29T12:00:00.000Z']],
  ['0 0 29 2 *', '2096-03-01T00:00:00Z', ['2104-02-29T00:00:00.000Z']], // 2100 is no leap year
  ['0 0 * JAN,jul *', '2026-01-31T00:00:00Z', ['2026-07-01T00:00:00.000Z']],
  ['0 0 * * 7', '2026-01-01T00:00:00Z', ['2026-01-04T00:00:00.000Z']], // 7 is Sunday
  ['0 0 * * 0', '2026-01-01T00:00:00Z', ['2026-01-04T00:00:00.000Z']],
  [
    '0 0 * * 5-7',
    '2026-01-01T00:00:00Z',
    [
      '2026-01-02T00:00:00.000Z',
      '2026-01-03T00:00:00.000Z',
      '2026-01-04T00:00:00.000Z',
      '2026-01-09T00:00:00.000Z',
    ],
  ],
  // Both day fields restricted: either matches (the 13th, or any Friday).
  [
    '0 0 13 * FRI',
    '2026-02-01T00:00:00Z',
    ['2026-02-06T00:00:00.000Z', '2026-02-13T00:00:00.000Z', '2026-02-20T00:00:00.000Z'],
  ],
  // A day field starting with * is unrestricted, so the other one must match too.
  ['0 0 */2 * MON', '2026-01-01T00:00:00Z', ['2026-01-05T00:00:00.000Z', '2026-01-19T00:00:00.000Z']],
  ['0 0 1 * *', '2026-12-15T00:00:00Z', ['2027-01-01T00:00:00.000Z']],
  ['59 23 31 12 *', '2026-12-31T23:59:00Z', ['2027-12-31T23:59:00.000Z']],
  [
    '5/20 * * * *',
    '2026-01-01T00:00:00Z',
    [
      '2026-01-01T00:05:00.000Z',
      '2026-01-01T00:25:00.000Z',
      '2026-01-01T00:45:00.000Z',
      '2026-01-01T01:05:00.000Z',
    ],
  ],
  ['@daily', '2026-01-01T10:00:00Z', ['2026-01-02T00:00:00.000Z']],
  ['@hourly', '2026-01-01T10:00:00Z', ['2026-01-01T11:00:00.000Z']],
  ['30 0 9 * * ?', '2026-01-01T09:00:00Z', ['2026-01-01T09:00:30.000Z', '2026-01-02T09:00:30.000Z']], // six fields
];

test('cron: lists, ranges, steps, names, Sunday as 0 and 7, month ends, leap days, the day rule', () => {
  for (const [text, from, expected] of cronCases) {
    assert.deepEqual(
      series(schedule('cycle', text), from, expected.length),
      expected,
      `${text} from ${from}`,
    );
  }
});

test('cron: the next occurrence is strictly after, from any second within a minute', () => {
  const s = schedule('cycle', '* * * * *');
  assert.equal(iso(s.first(at('2026-01-01T10:00:00Z'))), '2026-01-01T10:01:00.000Z');
  assert.equal(iso(s.first(at('2026-01-01T10:00:59.999Z'))), '2026-01-01T10:01:00.000Z');
  assert.equal(schedule('cycle', '0 0 * * *').repetitions, null);
});

const invalid: [TimerKind, string, RegExp][] = [
  ['date', '2026-02-29T00:00:00Z', /day 29 does not exist in 2026-02/],
  ['date', '2026-13-01T00:00:00Z', /month 13/],
  ['date', '2026-01-01T24:00:00Z', /time 24:00:00/],
  ['date', '2026-01-01T10:00:00@Europe/Berlin', /time zone names are not supported/],
  ['date', '2026-01-01T10:00:00+19:00', /offset/],
  ['date', 'tomorrow', /not an ISO 8601 date-time/],
  ['date', '', /empty/],
  ['duration', 'P', /not an ISO 8601 duration/],
  ['duration', 'PT', /not an ISO 8601 duration/],
  ['duration', 'P1DT', /not an ISO 8601 duration/],
  ['duration', '10 minutes', /not an ISO 8601 duration/],
  ['duration', '-PT5M', /negative/],
  ['duration', 'P1.5D', /fraction of days/],
  ['duration', 'P0.5M', /fraction of months/],
  ['duration', 'P20000Y', /longer than 10000 years/],
  ['cycle', 'R0/PT1M', /repetition count/],
  ['cycle', 'R5/PT0S', /longer than zero/],
  ['cycle', 'R5', /R\[n\]\/\[start\/\]duration/],
  ['cycle', 'R5/', /R\[n\]\/\[start\/\]duration/],
  ['cycle', 'R/PT1M/PT2M', /one duration/],
  ['cycle', 'R/2026-01-01T00:00:00Z/PT1M/2027-01-01T00:00:00Z', /R\[n\]/],
  ['cycle', 'R/2026-01-02T00:00:00Z/2026-01-01T00:00:00Z', /ends before it starts/],
  ['cycle', 'PT10M', /repeating interval such as R5\/PT10M or a cron expression/],
  ['cycle', '* * *', /five fields/],
  ['cycle', '* * * * * * *', /five fields/],
  ['cycle', '60 * * * *', /minute field: 60 is outside 0-59/],
  ['cycle', '0 24 * * *', /hour field: 24/],
  ['cycle', '0 0 0 * *', /day-of-month field: 0/],
  ['cycle', '0 0 1 13 *', /month field: 13/],
  ['cycle', '0 0 * * 8', /day-of-week field: 8/],
  ['cycle', '0 0 * * FRI-MON', /runs backwards/],
  ['cycle', '*/0 * * * *', /step '0'/],
  ['cycle', '0 0 L * *', /L, W and # are not supported/],
  ['cycle', '0 0 * * 5#2', /L, W and # are not supported/],
  ['cycle', '0 0 * * FOO', /'FOO' is not a number or a name/],
  ['cycle', '0 0 30 2 *', /never match a date/],
  ['cycle', '1,,2 * * * *', /empty item/],
  ['cycle', '@every5m', /unknown cron macro/],
];

test('invalid definitions throw InvalidTimerError with a message naming the field and the text', () => {
  for (const [kind, value, reason] of invalid) {
    assert.throws(
      () => parseTimerSchedule({ kind, value }),
      (error: unknown) => {
        assert.ok(error instanceof InvalidTimerError, `${kind} '${value}'`);
        assert.match(error.reason, reason, `${kind} '${value}'`);
        assert.ok(
          error.message.startsWith(`invalid time${kind[0]?.toUpperCase()}${kind.slice(1)} '${value}': `),
        );
        return true;
      },
    );
  }
});

test('timerProblem returns the message or null', () => {
  assert.equal(timerProblem({ kind: 'cycle', value: 'R/PT1M' }), null);
  assert.equal(
    timerProblem({ kind: 'duration', value: 'PT' }),
    "invalid timeDuration 'PT': not an ISO 8601 duration such as PT10M, P1D or P1Y2M3DT4H5M6S",
  );
});
