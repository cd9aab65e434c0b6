const DURATION =
  /^-?P(?!$)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?(T(?=\d)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?(@[A-Za-z_/+-]+)?$/;

/** True for an ISO 8601 duration such as `PT5M` or `P1DT2H`. */
export function isIsoDuration(text: string): boolean {
  return DURATION.test(text);
}

/** True for an ISO 8601 date-time such as `2030-01-01T10:00:00Z`. */
export function isIsoDateTime(text: string): boolean {
  return DATE_TIME.test(text) && !Number.isNaN(Date.parse(text.replace(/@.*$/, '')));
}

/**
 * True for a timer cycle: an ISO 8601 repeating interval (`R5/PT10M`, `R/2030-01-01T00:00Z/P1D`,
 * `R3/PT1H/2030-01-01T00:00Z`) or a cron expression of five or six fields, as Zeebe accepts.
 */
export function isTimerCycle(text: string): boolean {
  const parts = text.split('/');
  const repeat = parts[0] ?? '';
  if (/^R\d*$/.test(repeat)) {
    if (parts.length === 2) return isIsoDuration(parts[1] ?? '');
    if (parts.length === 3) {
      const [, a = '', b = ''] = parts;
      return (isIsoDateTime(a) && isIsoDuration(b)) || (isIsoDuration(a) && isIsoDateTime(b));
    }
    return false;
  }
  const fields = text.trim().split(/\s+/);
  return (
    (fields.length === 5 || fields.length === 6) && fields.every((f) => /^[\d*?/,\-LW#A-Za-z]+$/.test(f))
  );
}
