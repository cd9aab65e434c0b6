/*
 * Camunda 7 writes and reads dates as `yyyy-MM-dd'T'HH:mm:ss.SSSZ`: milliseconds, and an offset
 * without a colon (2013-01-23T13:42:42.000+0200).
 */

const camundaDatePattern =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(Z|[+-]\d{2}:?\d{2})$/;

/** A date in Camunda's format, always in UTC (`+0000`). */
export function formatCamundaDate(date: Date): string {
  return date.toISOString().replace(/Z$/, '+0000');
}

/**
 * Reads a date in Camunda's format; also takes `Z` and an offset with a colon, and fewer
 * millisecond digits, as ISO 8601 writes them. Null when the text is not such a date or names a
 * day that does not exist (2013-02-30).
 */
export function parseCamundaDate(text: string): Date | null {
  const match = camundaDatePattern.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, millis = '0', zone = 'Z'] = match;
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59) return null;
  // setUTCFullYear, unlike Date.UTC, does not read years below 100 as 19xx.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, Number(millis.padEnd(3, '0')));
  // 2013-02-30 rolls over into March: a day that changed did not exist.
  if (date.getUTCDate() !== d) return null;
  const local = date.getTime();
  const offsetMinutes = zone === 'Z' ? 0 : zoneMinutes(zone);
  if (offsetMinutes === null) return null;
  return new Date(local - offsetMinutes * 60_000);
}

function zoneMinutes(zone: string): number | null {
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) return null;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
