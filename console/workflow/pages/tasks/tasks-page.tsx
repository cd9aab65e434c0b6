import { useState } from 'preact/hooks';
import { query } from '../../../shared/api.js';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { useStore } from '../../../shared/store.js';
import { useResource } from '../../../shared/use-resource.js';
import { api, base, me, useOrg } from '../../session.js';
import { ClaimButton } from './claim-button.js';
import { taskTitle, type UserTask } from './task-types.js';

const PAGE_SIZE = 20;

/** Which tasks the list shows. */
type Scope = 'all' | 'mine' | 'unassigned';

/**
 * The Tasklist: open user tasks of the org, oldest first, a page at a time, filtered to the caller's
 * or the unassigned ones, with Claim / Unclaim on each row.
 */
export function TasksPage() {
  const org = useOrg();
  const caller = useStore(me);
  const [scope, setScope] = useState<Scope>('all');
  const [offset, setOffset] = useState(0);
  const filter =
    scope === 'mine' ? { assignee: caller?.email } : scope === 'unassigned' ? { unassigned: true } : {};
  const tasks = useResource(
    `tasks/${org?.id}/${scope}/${offset}`,
    (signal) =>
      org
        ? api.get<UserTask[]>(
            `/api/v1/tasks${query({ org_id: org.id, ...filter, limit: PAGE_SIZE + 1, offset })}`,
            { signal },
          )
        : Promise.resolve([]),
    { refreshMs: 5000 },
  );
  const rows = tasks.data?.slice(0, PAGE_SIZE) ?? [];
  const hasNext = (tasks.data?.length ?? 0) > PAGE_SIZE;
  return (
    <Page title="Tasks">
      <div class="filters">
        <label>
          Show
          <select
            value={scope}
            onChange={(event) => {
              setScope(event.currentTarget.value as Scope);
              setOffset(0);
            }}
          >
            <option value="all">All open tasks</option>
            <option value="mine">Assigned to me</option>
            <option value="unassigned">Unassigned</option>
          </select>
        </label>
      </div>
      <ErrorNotice error={tasks.error} />
      {tasks.data === undefined ? (
        <Loading />
      ) : rows.length === 0 ? (
        <p class="muted">No open task here.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Assignee</th>
                <th scope="col">Candidate groups</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((task) => (
                <tr key={task.id}>
                  <td>
                    <a href={`${base}/tasks/${task.id}`}>{taskTitle(task)}</a>
                  </td>
                  <td>{task.assignee ?? <span class="muted">unassigned</span>}</td>
                  <td>{task.candidate_groups.join(', ')}</td>
                  <td>{new Date(task.created_at).toLocaleString()}</td>
                  <td>
                    <ClaimButton task={task} onChange={tasks.reload} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          disabled={offset === 0}
          onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
        >
          Previous
        </button>
        <span class="muted">{rows.length === 0 ? 'none' : `${offset + 1}–${offset + rows.length}`}</span>
        <button type="button" disabled={!hasNext} onClick={() => setOffset(offset + PAGE_SIZE)}>
          Next
        </button>
      </nav>
    </Page>
  );
}
