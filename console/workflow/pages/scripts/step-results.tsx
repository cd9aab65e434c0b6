import { prettyJson } from '../../components/json-object-input.js';
import type { EditedStep, PipelineRun, StepResult } from './types.js';

/** What each step of a run produced: its output and duration, or its error at its position. */
export function StepResults(props: { run: PipelineRun; steps: EditedStep[] }) {
  return (
    <section aria-labelledby="run-heading" aria-live="polite">
      <h2 id="run-heading">Run</h2>
      <ol class="step-results">
        {props.run.steps.map((result, index) => (
          <li key={`${index}-${result.name}`}>
            <article
              aria-label={`Step ${result.name}`}
              class={`step-result ${result.status === 'ok' ? 'ok' : 'failed'}`}
            >
              <h3>
                {result.name} <span class="badge">{result.type}</span>{' '}
                <span class={`badge ${result.status === 'ok' ? 'completed' : 'failed'}`}>
                  {result.status}
                </span>{' '}
                <span class="muted">{formatDuration(result.duration_ms)}</span>
              </h3>
              {result.error ? (
                <StepError
                  error={result.error}
                  expression={props.steps.find((step) => step.name === result.name)?.expression}
                />
              ) : (
                <pre aria-label={`Output of ${result.name}`}>{prettyJson(result.output)}</pre>
              )}
            </article>
          </li>
        ))}
      </ol>
      <h3>Variables after the run</h3>
      <pre aria-label="Variables after the run">{prettyJson(props.run.variables_after)}</pre>
    </section>
  );
}

function StepError(props: { error: NonNullable<StepResult['error']>; expression: string | undefined }) {
  const { message, line, column } = props.error;
  const source = line === null ? undefined : props.expression?.split('\n')[line - 1];
  return (
    <div role="alert" class="error">
      <p>
        {line === null ? 'Error' : `Error at line ${line}${column === null ? '' : `, column ${column}`}`}:{' '}
        {message}
      </p>
      {source === undefined ? null : (
        <pre aria-label="Where the error is">
          {source}
          {column === null ? '' : `\n${' '.repeat(Math.max(0, column - 1))}^`}
        </pre>
      )}
    </div>
  );
}

function formatDuration(ms: number): string {
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${Math.round(ms)} ms`;
}
