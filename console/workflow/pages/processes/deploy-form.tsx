import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { fieldText } from '../../../shared/form-data.js';
import { useResource } from '../../../shared/use-resource.js';
import { api } from '../../session.js';
import type { ProcessDefinition } from '../../types.js';
import { DeployProblems, problemsOf } from './deploy-problems.js';
import type { DeployProblem, ProcessGroup } from './types.js';

interface Refusal {
  problems: DeployProblem[];
  xml: string;
  fileName: string;
}

/** Deploys an uploaded `.bpmn` file into a process group; a refusal lists its problems per element. */
export function DeployForm(props: { orgId: string; onDeployed: () => void }) {
  const groups = useResource(`process-groups/${props.orgId}`, (signal) =>
    api.get<ProcessGroup[]>(`/api/v1/orgs/${props.orgId}/process-groups`, { signal }),
  );
  const [groupId, setGroupId] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const [refusal, setRefusal] = useState<Refusal | undefined>();
  const [deployed, setDeployed] = useState<string | undefined>();
  const chosenGroup = groupId || groups.data?.[0]?.id || '';

  async function deploy(form: FormData): Promise<void> {
    const file = form.get('file');
    if (!(file instanceof File) || file.size === 0) throw new Error('Choose a .bpmn file to deploy');
    const xml = await file.text();
    try {
      const answer = await api.post<ProcessDefinition & { definitions: ProcessDefinition[] }>(
        '/api/v1/deployments',
        { org_id: props.orgId, process_group_id: chosenGroup, xml, draft: form.get('draft') === 'on' },
      );
      setDeployed(
        answer.definitions
          .map((definition) => `${definition.name} ${definition.draft ? 'draft' : `v${definition.version}`}`)
          .join(', '),
      );
      props.onDeployed();
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 400) {
        const problems = problemsOf(failure.details);
        if (problems.length > 0) setRefusal({ problems, xml, fileName: file.name });
      }
      throw failure;
    }
  }

  return (
    <section class="deploy" aria-labelledby="deploy-heading">
      <h2 id="deploy-heading">Deploy a model</h2>
      <ErrorNotice error={groups.error} />
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          setRefusal(undefined);
          setDeployed(undefined);
          const form = event.currentTarget;
          deploy(new FormData(form))
            .then(() => {
              // Only the file: the chosen group is component state, which a form reset would not follow.
              const file = form.elements.namedItem('file');
              if (file instanceof HTMLInputElement) file.value = '';
            })
            .catch((failure: unknown) =>
              setError(failure instanceof Error ? failure : new Error(String(failure))),
            )
            .finally(() => setBusy(false));
        }}
      >
        <label>
          Process group
          <select value={chosenGroup} onChange={(event) => setGroupId(event.currentTarget.value)} required>
            {(groups.data ?? []).map((group) => (
              <option key={group.id} value={group.id}>
                {group.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          BPMN file
          <input type="file" name="file" accept=".bpmn,.xml,application/xml,text/xml" required />
        </label>
        <label class="deploy-draft">
          <input type="checkbox" name="draft" /> Deploy as a draft
        </label>
        <button type="submit" class="primary" disabled={busy || chosenGroup === ''}>
          Deploy
        </button>
      </form>
      {groups.data?.length === 0 ? <p class="muted">Create a process group to deploy into.</p> : null}
      <NewGroupForm
        orgId={props.orgId}
        onCreated={(group) => {
          setGroupId(group.id);
          groups.reload();
        }}
      />
      <ErrorNotice error={error} />
      {deployed ? (
        <p class="ok" role="status">
          Deployed {deployed}
        </p>
      ) : null}
      {refusal ? <DeployProblems {...refusal} /> : null}
    </section>
  );
}

function NewGroupForm(props: { orgId: string; onCreated: (group: ProcessGroup) => void }) {
  const [error, setError] = useState<Error | undefined>();
  return (
    <details class="new-group">
      <summary>New process group</summary>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          setError(undefined);
          api
            .post<ProcessGroup>(`/api/v1/orgs/${props.orgId}/process-groups`, {
              name: fieldText(new FormData(form), 'name'),
            })
            .then((group) => {
              form.reset();
              props.onCreated(group);
            })
            .catch((failure: unknown) =>
              setError(failure instanceof Error ? failure : new Error(String(failure))),
            );
        }}
      >
        <label>
          Group name
          <input name="name" required maxLength={200} />
        </label>
        <button type="submit">Create group</button>
      </form>
      <ErrorNotice error={error} />
    </details>
  );
}
