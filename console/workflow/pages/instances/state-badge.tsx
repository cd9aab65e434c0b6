import type { Instance } from './model.js';

/** An instance's state as a badge, with "suspended" beside it when it is. */
export function StateBadge({ instance }: { instance: Pick<Instance, 'state' | 'suspended'> }) {
  return (
    <>
      <span class={`badge ${instance.state}`}>{instance.state}</span>
      {instance.suspended ? <span class="badge"> suspended</span> : null}
    </>
  );
}
