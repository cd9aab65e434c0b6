import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { useResource } from '../../../shared/use-resource.js';
import { api, base } from '../../session.js';
import { ClaimButton } from './claim-button.js';
import { FormJsCompletion } from './form-js-completion.js';
import { JsonCompletion } from './json-completion.js';
import { completeTask, taskTitle, type UserTaskDetails } from './task-types.js';

/** One open task: its details, Claim / Unclaim, and its form (form-js, else JSON) to complete it. */
export function TaskPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const [completed, setCompleted] = useState(false);
  const task = useResource(`task/${id}`, (signal) =>
    api.get<UserTaskDetails>(`/api/v1/tasks/${encodeURIComponent(id)}`, { signal }),
  );
  const complete = async (variables: Record<string, unknown>) => {
    await completeTask(id, variables);
    setCompleted(true);
  };
  const back = <a href={`${base}/tasks`}>Back to the tasks</a>;
  if (completed)
    return (
      <Page title="Task completed">
        <p role="status">The task is completed; the process goes on.</p>
        <p>{back}</p>
      </Page>
    );
  const data = task.data;
  return (
    <Page title={data ? taskTitle(data) : 'Task'} actions={back}>
      <ErrorNotice error={task.error} />
      {data === undefined ? (
        task.error ? null : (
          <Loading />
        )
      ) : (
        <>
          <dl class="task-facts">
            <dt>Process</dt>
            <dd>{data.process_key}</dd>
            <dt>Instance</dt>
            <dd>
              <a href={`${base}/instances/${data.process_instance_id}`}>{data.process_instance_id}</a>
            </dd>
            <dt>Assignee</dt>
            <dd>{data.assignee ?? <span class="muted">unassigned</span>}</dd>
            <dt>Candidate groups</dt>
            <dd>{data.candidate_groups.length > 0 ? data.candidate_groups.join(', ') : '—'}</dd>
            <dt>Candidate users</dt>
            <dd>{data.candidate_users.length > 0 ? data.candidate_users.join(', ') : '—'}</dd>
            <dt>Created</dt>
            <dd>{new Date(data.created_at).toLocaleString()}</dd>
            {data.form_key !== null ? (
              <>
                <dt>Form</dt>
                <dd>{data.form_key}</dd>
              </>
            ) : null}
          </dl>
          <ClaimButton task={data} onChange={task.reload} />
          <h2>Complete</h2>
          {data.form !== null ? (
            <FormJsCompletion schema={data.form} variables={data.variables} complete={complete} />
          ) : (
            <JsonCompletion variables={data.variables} complete={complete} />
          )}
        </>
      )}
    </Page>
  );
}
