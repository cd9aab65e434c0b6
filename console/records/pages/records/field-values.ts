import { displayValue, type FieldDescription, type RecordData } from '../../schema-description.js';

/** The text of every field's input, by field name. */
export type FormValues = Record<string, string>;

/** Per-field messages (from the API's `details.errors`, or the form's own JSON parsing). */
export type FieldErrors = Record<string, string>;

/** The inputs' text for `record` (or the fields' defaults for a new record). */
export function formValuesOf(fields: FieldDescription[], record?: Record<string, unknown>): FormValues {
  return Object.fromEntries(
    fields.map((field) => {
      const value = record ? record[field.name] : field.default;
      if (field.type === 'json' && value !== null && value !== undefined)
        return [field.name, JSON.stringify(value, null, 2)];
      return [field.name, displayValue(value)];
    }),
  );
}

function parseValue(field: FieldDescription, text: string): unknown {
  if (text.trim() === '') return null;
  switch (field.type) {
    case 'integer':
    case 'number':
      return Number.isNaN(Number(text)) ? text : Number(text);
    case 'boolean':
      return text === 'true';
    case 'json':
      return JSON.parse(text) as unknown;
    default:
      return text;
  }
}

/**
 * The request body for the form: on create every field with a value; on edit (`original` given)
 * only the fields whose value changed (an emptied optional field becomes null). Fields the caller
 * may not write are never sent. JSON that does not parse is a field error, nothing is sent.
 */
export function payloadOf(
  fields: FieldDescription[],
  values: FormValues,
  original?: RecordData,
): { body: Record<string, unknown>; errors: FieldErrors } {
  const body: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const field of fields) {
    if (!field.writable) continue;
    const text = values[field.name] ?? '';
    let value: unknown;
    try {
      value = parseValue(field, text);
    } catch {
      errors[field.name] = 'is not valid JSON';
      continue;
    }
    if (original === undefined) {
      if (value !== null) body[field.name] = value;
    } else if (JSON.stringify(value) !== JSON.stringify(original[field.name] ?? null))
      body[field.name] = value;
  }
  return { body, errors };
}

/** The API's `VALIDATION_ERROR` details as messages per field (a nested path counts for its field). */
export function fieldErrorsOf(details: unknown): FieldErrors {
  const errors: FieldErrors = {};
  const list = (details as { errors?: { field: string; reason: string }[] } | undefined)?.errors;
  for (const item of list ?? []) {
    const field = item.field.split('.')[0] ?? item.field;
    errors[field] = errors[field] ? `${errors[field]}; ${item.reason}` : item.reason;
  }
  const denied = (details as { fields?: string[] } | undefined)?.fields;
  for (const field of denied ?? []) errors[field] = 'you may not write this field';
  return errors;
}
