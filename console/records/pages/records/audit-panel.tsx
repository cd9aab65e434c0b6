import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { api } from '../../session.js';

interface Verification {
  valid: boolean;
  events: number;
  tampering_detected: number;
  tampered?: { reason: string; event_id?: number; version?: number }[];
}

/** Verifies the record's audit chain (`POST /api/platform/audit/verify`): valid or tampered. */
export function AuditPanel({ path, id }: { path: string; id: string }) {
  const [result, setResult] = useState<Verification | undefined>();
  const [error, setError] = useState<Error | undefined>();
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit</h2>
      <button
        type="button"
        onClick={() => {
          setError(undefined);
          api.post<{ data: Verification }>('/api/platform/audit/verify', { schema: path, id }).then(
            (answer) => setResult(answer.data),
            (failure: Error) => {
              setResult(undefined);
              setError(failure);
            },
          );
        }}
      >
        Verify the audit trail
      </button>
      <ErrorNotice error={error} />
      {result ? (
        <div role="status" class={result.valid ? 'notice' : 'error'}>
          <p>
            {result.valid
              ? `Valid: ${result.events} audit events, no tampering.`
              : `Tampered: ${result.tampering_detected} of ${result.events} audit events fail verification.`}
          </p>
          {result.tampered && result.tampered.length > 0 ? (
            <ul>
              {result.tampered.map((finding, index) => (
                <li key={index}>
                  {finding.reason}
                  {finding.event_id !== undefined ? ` (event ${finding.event_id})` : ''}
                  {finding.version !== undefined ? `, version ${finding.version}` : ''}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
