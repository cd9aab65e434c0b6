import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { fieldText } from '../../../shared/form-data.js';
import { api } from '../../session.js';
import type { ProcessDefinition } from '../../types.js';
import { versionPath } from './links.js';
import type { VersionInstanceCounts } from './types.js';

/** One process key: its name (renamable), and a row per version with its instance counts. */
export function ProcessVersions(props: {
  orgId: string;
  processKey: string;
  versions: ProcessDefinition[];
  counts: Map<string, VersionInstanceCounts>;
  onChanged: () => void;
}) {
  const latest = props.versions[0];
  const headingId = `process-${props.processKey}`;
  return (
    <section class="process" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {latest?.name || props.processKey} <code class="muted">{props.processKey}</code>
      </h2>
      {latest ? (
        <RenameForm
          orgId={props.orgId}
          processKey={props.processKey}
          groupId={latest.process_group_id}
          name={latest.name}
          onRenamed={props.onChanged}
        />
      ) : null}
      <div class="table-wrap">
        <table aria-label={`Versions of ${props.processKey}`}>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Deployed</th>
              <th scope="col">Running</th>
              <th scope="col">Incidents</th>
              <th scope="col">Completed</th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {props.versions.map((version) => (
              <VersionRow
                key={version.id}
                version={version}
                counts={props.counts.get(version.id)}
                onChanged={props.onChanged}
              />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function versionLabel(version: ProcessDefinition): string {
  return version.draft ? 'draft' : `v${version.version}`;
}

function VersionRow(props: {
  version: ProcessDefinition;
  counts: VersionInstanceCounts | undefined;
  onChanged: () => void;
}) {
  const { version } = props;
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const label = versionLabel(version);
  function toggle(): void {
    setBusy(true);
    setError(undefined);
    api
      .patch(`/api/v1/deployments/${version.id}/disabled`, { disabled: !version.disabled })
      .then(props.onChanged)
      .catch((failure: unknown) => setError(failure instanceof Error ? failure : new Error(String(failure))))
      .finally(() => setBusy(false));
  }
  return (
    <tr>
      <th scope="row">
        <a href={versionPath(version.process_key, version.id)}>{label}</a>
      </th>
      <td>{new Date(version.deployed_at).toLocaleString()}</td>
      <td>{props.counts?.running ?? 0}</td>
      <td>{props.counts?.incident ? <span class="badge incident">{props.counts.incident}</span> : 0}</td>
      <td>{props.counts?.completed ?? 0}</td>
      <td>
        {version.draft ? <span class="badge">draft</span> : null}
        {version.disabled ? <span class="badge">disabled</span> : null}
        {version.suspended ? <span class="badge">suspended</span> : null}
        {!version.draft && !version.disabled && !version.suspended ? (
          <span class="badge active">enabled</span>
        ) : null}
      </td>
      <td>
        {version.draft ? null : (
          <button
            type="button"
            disabled={busy}
            onClick={toggle}
            aria-label={`${version.disabled ? 'Enable' : 'Disable'} ${version.process_key} ${label}`}
          >
            {version.disabled ? 'Enable' : 'Disable'}
          </button>
        )}
        <ErrorNotice error={error} />
      </td>
    </tr>
  );
}

function RenameForm(props: {
  orgId: string;
  processKey: string;
  groupId: string;
  name: string;
  onRenamed: () => void;
}) {
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <details class="rename">
      <summary>Rename</summary>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          const details = event.currentTarget.closest('details');
          setBusy(true);
          setError(undefined);
          api
            .patch('/api/v1/deployments/by-key', {
              org_id: props.orgId,
              process_group_id: props.groupId,
              process_key: props.processKey,
              name: fieldText(new FormData(event.currentTarget), 'name'),
            })
            .then(() => {
              if (details) details.open = false;
              props.onRenamed();
            })
            .catch((failure: unknown) =>
              setError(failure instanceof Error ? failure : new Error(String(failure))),
            )
            .finally(() => setBusy(false));
        }}
      >
        <label>
          New name of {props.processKey}
          <input name="name" required maxLength={255} defaultValue={props.name} />
        </label>
        <button type="submit" disabled={busy}>
          Save name
        </button>
      </form>
      <ErrorNotice error={error} />
    </details>
  );
}
