import { base } from '../../session.js';
import type { RetryOutcome } from './batch-retry.js';

/** Each retried instance with its outcome: done, or failed with the reason. */
export function RetryOutcomes({ outcomes }: { outcomes: RetryOutcome[] }) {
  const failed = outcomes.filter((outcome) => outcome.outcome === 'failed').length;
  return (
    <section aria-labelledby="retry-outcomes-heading" class="retry-outcomes">
      <h2 id="retry-outcomes-heading">Retry outcome</h2>
      <p role="status">
        {outcomes.length - failed} done, {failed} failed
      </p>
      <ul>
        {outcomes.map((outcome) => (
          <li key={outcome.instanceId}>
            <a href={`${base}/instances/${outcome.instanceId}`}>{outcome.instanceId}</a>:{' '}
            <span class={`badge ${outcome.outcome === 'done' ? 'completed' : 'failed'}`}>
              {outcome.outcome}
            </span>
            {outcome.reason ? ` ${outcome.reason}` : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}
