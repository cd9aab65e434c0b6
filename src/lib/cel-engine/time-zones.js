// Fork addition (README.md): the calendar fields of a timestamp in a CEL time zone, which is
// "UTC", an IANA name or a fixed offset (langdef.md "Timezones"). Fixed offsets are not IANA
// names, so they are applied here instead of being passed to Intl; the fields never depend on the
// zone of the host.
import {evaluationError} from './errors.js'

const FIXED_OFFSET = /^([+-])?(\d{2}):(\d{2})$/
const formats = new Map()

function formatFor(timeZone) {
  let format = formats.get(timeZone)
  if (format) return format
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short'
    })
  } catch {
    throw evaluationError('invalid_timezone', `Invalid time zone: ${timeZone}`)
  }
  if (formats.size < 256) formats.set(timeZone, format)
  return format
}

/**
 * The UTC time whose UTC fields are the wall-clock fields of `date` in `timeZone`.
 * @param {Date} date
 * @param {string} timeZone
 * @returns {Date}
 */
export function wallClock(date, timeZone) {
  const fixed = FIXED_OFFSET.exec(timeZone)
  if (fixed) {
    const minutes = Number(fixed[2]) * 60 + Number(fixed[3])
    return new Date(date.getTime() + (fixed[1] === '-' ? -minutes : minutes) * 60_000)
  }
  const fields = {}
  for (const part of formatFor(timeZone).formatToParts(date)) fields[part.type] = part.value
  const year = fields.era === 'BC' || fields.era === 'B' ? 1 - Number(fields.year) : Number(fields.year)
  const wall = new Date(0)
  wall.setUTCFullYear(year, Number(fields.month) - 1, Number(fields.day))
  wall.setUTCHours(Number(fields.hour), Number(fields.minute), Number(fields.second), date.getUTCMilliseconds())
  return wall
}
