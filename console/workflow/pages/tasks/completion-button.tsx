import { ErrorNotice } from '../../../shared/components/error-notice.js';

/** The Complete button with the refusal beside it (the API's message, or the form's own check). */
export function CompletionButton(props: { busy: boolean; error: Error | undefined; onClick?: () => void }) {
  return (
    <div class="task-complete">
      <button
        type={props.onClick ? 'button' : 'submit'}
        class="primary"
        disabled={props.busy}
        onClick={props.onClick}
      >
        Complete task
      </button>
      <ErrorNotice error={props.error} />
    </div>
  );
}
