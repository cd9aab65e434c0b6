import { constraintsOf, type FieldDescription } from '../../schema-description.js';

/** The input of one schema field, chosen by its type, with its constraints and the API's error below. */
export function FieldInput(props: {
  field: FieldDescription;
  value: string;
  error?: string;
  onInput: (value: string) => void;
}) {
  const { field, value, error } = props;
  const id = `field-${field.name}`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = [hintId, error ? errorId : ''].filter(Boolean).join(' ');
  const common = {
    id,
    name: field.name,
    disabled: !field.writable,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': described,
    'aria-required': field.required ? ('true' as const) : undefined,
  };
  const onInput = (event: Event) => props.onInput((event.currentTarget as HTMLInputElement).value);
  let control;
  if (field.type === 'enum' || field.type === 'boolean') {
    const options = field.type === 'enum' ? (field.enum ?? []) : ['true', 'false'];
    control = (
      <select {...common} value={value} onChange={onInput}>
        <option value="">(not set)</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    );
  } else if (field.type === 'json') {
    control = <textarea {...common} rows={4} value={value} onInput={onInput} />;
  } else {
    const numeric = field.type === 'integer' || field.type === 'number';
    // Preact types `type` as a union per input kind; one element serves the three kinds here.
    const type = (numeric ? 'number' : field.type === 'date' ? 'date' : 'text') as 'text';
    control = (
      <input
        {...common}
        type={type}
        step={field.type === 'integer' ? 1 : numeric ? 'any' : undefined}
        min={field.min}
        max={field.max}
        minLength={field.minLength}
        maxLength={field.maxLength}
        placeholder={field.type === 'timestamp' ? '2026-01-31T12:00:00Z' : undefined}
        value={value}
        onInput={onInput}
      />
    );
  }
  const hints = [field.type, ...constraintsOf(field)];
  if (!field.writable) hints.push('you may not write this field');
  if (!field.readable) hints.push('hidden from you');
  return (
    <div class={`form-field${error ? ' invalid' : ''}`}>
      <label for={id}>
        {field.name}
        {field.required ? ' *' : ''}
      </label>
      {control}
      <small id={hintId} class="muted">
        {hints.join(' · ')}
      </small>
      {error ? (
        <small id={errorId} class="field-error">
          {field.name} {error}
        </small>
      ) : null}
    </div>
  );
}
