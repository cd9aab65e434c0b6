import { describe, test } from 'node:test';
import { fails, holds } from './helpers.js';

// langdef.md "Timezones": "UTC", a long (IANA) name or a fixed offset "+HH:MM" / "-HH:MM".

const ts = "timestamp('2024-03-31T22:30:00Z')";

describe('fixed-offset time zones', () => {
  test('shift the calendar fields by the offset', () => {
    holds(`${ts}.getHours('+05:45') == 4 && ${ts}.getMinutes('+05:45') == 15`);
    holds(`${ts}.getDate('+05:45') == 1 && ${ts}.getMonth('+05:45') == 3`);
    holds(`${ts}.getHours('-10:00') == 12 && ${ts}.getDayOfMonth('-10:00') == 30`);
  });

  test('cross the year boundary', () => {
    const eve = "timestamp('2023-12-31T20:00:00Z')";
    holds(`${eve}.getFullYear('+04:00') == 2024 && ${eve}.getDayOfYear('+04:00') == 0`);
    holds(`${eve}.getDayOfYear() == 364 && ${eve}.getDayOfWeek('+04:00') == 1`);
  });

  test('-00:00 is UTC', () => {
    holds(`${ts}.getHours('-00:00') == 22`);
  });
});

describe('long time zone names', () => {
  test('follow the zone rules, whatever the zone of the host', () => {
    holds(`${ts}.getHours('Europe/Paris') == 0 && ${ts}.getDate('Europe/Paris') == 1`);
    holds(`${ts}.getHours('America/New_York') == 18 && ${ts}.getHours('UTC') == 22`);
  });

  test('an unknown zone is an error', () => {
    fails(`${ts}.getHours('Mars/Olympus')`, /time zone/i);
  });
});
