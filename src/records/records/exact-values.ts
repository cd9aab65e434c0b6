import {
  compareDecimals,
  int64Text,
  magnitudeOf,
  parseDecimal,
  type Decimal,
} from '../../platform/json/decimal-text.js';
import type { InexactNumbers } from '../../platform/json/inexact-numbers.js';
import { RecordsErrors } from '../errors.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { FieldDefinition } from '../types.js';

/** Decimal places either side of the point a `number` field takes exactly (numeric's own limits are far larger). */
const maxMagnitude = 1000;

/** Field name → the SQL text that stores it exactly, for the fields the body's JSON numbers lose. */
export type ExactValues = ReadonlyMap<string, string>;

function refuse(field: string, reason: string): never {
  throw RecordsErrors.validation(`Invalid value for ${field}`, [{ field, reason }]);
}

function checkBounds(field: FieldDefinition, value: Decimal): void {
  const min = field.min === undefined ? null : parseDecimal(String(field.min));
  const max = field.max === undefined ? null : parseDecimal(String(field.max));
  if (min !== null && compareDecimals(value, min) < 0) refuse(field.name, `must be >= ${field.min}`);
  if (max !== null && compareDecimals(value, max) > 0) refuse(field.name, `must be <= ${field.max}`);
}

/**
 * The exact values of a validated create or patch body whose JSON numbers a 64-bit float cannot
 * hold (see `inexactNumbersOf`): `integer` fields get the digits as `bigint` text, `number` fields
 * the number as written (`numeric` keeps every digit), `json` fields their raw JSON text (`jsonb`
 * keeps numbers as `numeric`). Nothing is rounded: a fraction in an integer field, a value beyond 64
 * bits or beyond the field's `min`/`max`, or such a number anywhere else is 400 naming the field.
 */
export function exactValues(
  schema: CompiledSchema,
  inexact: InexactNumbers | undefined,
): ExactValues | undefined {
  if (inexact === undefined) return undefined;
  const values = new Map<string, string>();
  for (const { path, text } of inexact.numbers) {
    const name = path[0] ?? '(body)';
    const field = schema.definition.fields.find((candidate) => candidate.name === name);
    const decimal = parseDecimal(text);
    const cannotHold = `is ${text.length > 40 ? `${text.slice(0, 40)}…` : text}, which a ${field?.type ?? 'system'} field cannot hold exactly`;
    if (field === undefined || decimal === null) return refuse(name, cannotHold);
    if (field.type === 'json') {
      const raw = inexact.members.get(name);
      if (raw === undefined) return refuse(name, cannotHold);
      values.set(name, raw);
      continue;
    }
    if (path.length !== 1) return refuse(name, cannotHold);
    if (field.type === 'integer') {
      const integer = int64Text(decimal);
      if ('problem' in integer)
        refuse(
          name,
          integer.problem === 'fraction' ? 'must be integer' : 'is out of range for a 64-bit integer',
        );
      checkBounds(field, decimal);
      values.set(name, integer.text);
    } else if (field.type === 'number') {
      if (Math.abs(magnitudeOf(decimal)) > maxMagnitude || decimal.digits.length > maxMagnitude)
        refuse(name, `has more than ${maxMagnitude} digits either side of the decimal point`);
      checkBounds(field, decimal);
      values.set(name, text);
    } else {
      refuse(name, cannotHold);
    }
  }
  return values;
}
