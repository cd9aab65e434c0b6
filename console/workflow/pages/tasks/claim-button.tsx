import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { api, me, useOrg } from '../../session.js';
import { useStore } from '../../../shared/store.js';
import type { UserTask } from './task-types.js';

/** True when the task is assigned to the signed-in user (by email or user id). */
export function useIsMine(task: UserTask): boolean {
  const caller = useStore(me);
  if (task.assignee === null || caller === null) return false;
  return task.assignee === caller.id || task.assignee.toLowerCase() === caller.email.toLowerCase();
}

/**
 * Claim (unassigned task) or Unclaim (assigned task) for one task, with the API's refusal beside it.
 * `onChange` reloads what shows the task.
 */
export function ClaimButton(props: { task: UserTask; onChange: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const mine = useIsMine(props.task);
  const caller = useStore(me);
  const roles = useOrg()?.roles ?? [];
  const claim = props.task.assignee === null;
  // Someone else's task: only an Operator may take it back (the API says so too).
  const mayUnclaim =
    mine ||
    roles.includes('Operator') ||
    roles.includes('OrgAdmin') ||
    (caller?.global_roles.includes('PlatformAdmin') ?? false);
  if (!claim && !mayUnclaim) return null;
  const label = `${claim ? 'Claim' : 'Unclaim'} ${props.task.name ?? props.task.activity_id}`;
  const act = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api.post<void>(`/api/v1/tasks/${props.task.id}/${claim ? 'claim' : 'unclaim'}`);
      props.onChange();
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="task-claim">
      <button type="button" aria-label={label} disabled={busy} onClick={() => void act()}>
        {claim ? 'Claim' : 'Unclaim'}
      </button>
      <ErrorNotice error={error} />
    </div>
  );
}
