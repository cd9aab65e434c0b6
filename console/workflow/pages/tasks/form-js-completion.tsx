import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { CompletionButton } from './completion-button.js';

interface FormViewer {
  importSchema(schema: unknown, data?: unknown): Promise<unknown>;
  submit(): unknown;
  on(
    event: 'submit',
    callback: (event: { data: Record<string, unknown>; errors: Record<string, unknown> }) => void,
  ): void;
  on(event: 'changed', callback: () => void): void;
  destroy(): void;
}

/**
 * Completion through the task's Camunda form: @bpmn-io/form-js renders the schema with the task's
 * variables; a valid submit (our button, or a submit button of the form) sends the form's data as
 * the completion variables. form-js is loaded on first use.
 */
export function FormJsCompletion(props: {
  schema: Record<string, unknown>;
  variables: Record<string, unknown>;
  complete: (variables: Record<string, unknown>) => Promise<void>;
}) {
  const container = useRef<HTMLDivElement>(null);
  const form = useRef<FormViewer | null>(null);
  const [loadError, setLoadError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const complete = useRef(props.complete);
  complete.current = props.complete;
  // The form's own submit buttons bypass ours: one completion at a time.
  const sending = useRef(false);

  // A reload of the task (after a claim) gives equal but new objects: keep what the user typed.
  const content = JSON.stringify([props.schema, props.variables]);
  useEffect(() => {
    const [schema, variables] = JSON.parse(content) as [unknown, unknown];
    let destroyed = false;
    let viewer: FormViewer | null = null;
    import('./form-js-viewer.js')
      .then(async ({ Form }) => {
        if (destroyed || container.current === null) return;
        viewer = new Form({ container: container.current });
        form.current = viewer;
        viewer.on('submit', ({ data, errors }) => {
          if (Object.keys(errors).length > 0) {
            setError(new Error('Some fields need a value or a correction (marked in the form).'));
            return;
          }
          if (sending.current) return;
          sending.current = true;
          setError(undefined);
          setBusy(true);
          complete.current(data).catch((failure: unknown) => {
            sending.current = false;
            setError(failure as Error);
            setBusy(false);
          });
        });
        // A correction clears the "fields need a value" notice; form-js marks the fields itself.
        viewer.on('changed', () =>
          setError((current) => (current instanceof ApiError ? current : undefined)),
        );
        await viewer.importSchema(schema, variables);
      })
      .catch((failure: unknown) => setLoadError(failure as Error));
    return () => {
      destroyed = true;
      viewer?.destroy();
      form.current = null;
    };
  }, [content]);

  return (
    <div class="task-form">
      <ErrorNotice error={loadError} />
      <div ref={container} class="form-js-container" />
      <CompletionButton busy={busy} error={error} onClick={() => form.current?.submit()} />
    </div>
  );
}
