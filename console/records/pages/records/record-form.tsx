import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import type { FieldDescription } from '../../schema-description.js';
import { FieldInput } from './field-input.js';
import { fieldErrorsOf, type FieldErrors, type FormValues } from './field-values.js';

/**
 * A form generated from a schema's fields. `onSubmit` sends it; a `VALIDATION_ERROR` (or a field
 * write refusal) is shown beside each field it names, any other refusal above the button. The
 * browser's own validation is off so that the API's messages are the ones shown.
 */
export function RecordForm(props: {
  label: string;
  fields: FieldDescription[];
  values: FormValues;
  onInput: (values: FormValues) => void;
  submitLabel: string;
  onSubmit: () => Promise<FieldErrors | void>;
  children?: ComponentChildren;
}) {
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    setFieldErrors({});
    try {
      const local = await props.onSubmit();
      if (local && Object.keys(local).length > 0) setFieldErrors(local);
    } catch (failure) {
      const problem = failure instanceof Error ? failure : new Error(String(failure));
      if (problem instanceof ApiError) setFieldErrors(fieldErrorsOf(problem.details));
      setError(problem);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="record-form"
      aria-label={props.label}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      {props.fields.map((field) => (
        <FieldInput
          key={field.name}
          field={field}
          value={props.values[field.name] ?? ''}
          error={fieldErrors[field.name]}
          onInput={(value) => props.onInput({ ...props.values, [field.name]: value })}
        />
      ))}
      {props.children}
      <ErrorNotice error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {props.submitLabel}
      </button>
    </form>
  );
}
