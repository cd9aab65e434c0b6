import { useLocation } from 'preact-iso';
import { query } from '../../../shared/api.js';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { useStore } from '../../../shared/store.js';
import { useResource } from '../../../shared/use-resource.js';
import { api, base, me, useOrg } from '../../session.js';
import { ClaimButton } from './claim-button.js';
import { readTaskQuery, TaskFilters, taskApiFilter, taskListUrl, type TaskQuery } from './task-filters.js';
import { taskTitle, type UserTask } from './task-types.js';

const PAGE_SIZE = 20;

/**
 * The Tasklist: open user tasks of the org, oldest first, a page at a time, filtered (in the URL
 * query) to the caller's, the unassigned ones or those naming the caller a candidate user, and by
 * candidate group, with Claim / Unclaim on each row.
 */
export function TasksPage() {
  const org = useOrg();
  const caller = useStore(me);
  const location = useLocation();
  const current = readTaskQuery(location.query);
  const go = (next: TaskQuery) => location.route(taskListUrl(next));
  const listPath =
    org && caller
      ? `/api/v1/tasks${query({
          org_id: org.id,
          ...taskApiFilter(current, caller.email),
          limit: PAGE_SIZE + 1,
          offset: current.offset,
        })}`
      : null;
  const tasks = useResource(
    `tasks/${listPath}`,
    (signal) => (listPath ? api.get<UserTask[]>(listPath, { signal }) : Promise.resolve([])),
    { refreshMs: 5000 },
  );
  const rows = tasks.data?.slice(0, PAGE_SIZE) ?? [];
  const hasNext = (tasks.data?.length ?? 0) > PAGE_SIZE;
  return (
    <Page title="Tasks">
      <TaskFilters query={current} onApply={go} />
      <ErrorNotice error={tasks.error} />
      {tasks.data === undefined ? (
        <Loading />
      ) : rows.length === 0 ? (
        <p class="muted">
          {current.scope === 'all' && current.candidateGroup === ''
            ? 'No open task here.'
            : 'No open task matches these filters.'}
        </p>
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
          disabled={current.offset === 0}
          onClick={() => go({ ...current, offset: Math.max(0, current.offset - PAGE_SIZE) })}
        >
          Previous
        </button>
        <span class="muted">
          {rows.length === 0 ? 'none' : `${current.offset + 1}–${current.offset + rows.length}`}
        </span>
        <button
          type="button"
          disabled={!hasNext}
          onClick={() => go({ ...current, offset: current.offset + PAGE_SIZE })}
        >
          Next
        </button>
      </nav>
    </Page>
  );
}
