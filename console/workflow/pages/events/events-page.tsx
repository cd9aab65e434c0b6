import { Page } from '../../../shared/components/page.js';
import { useOrg } from '../../session.js';
import { MessageForm } from './message-form.js';
import { SignalForm } from './signal-form.js';

/** Send a message or broadcast a signal in the org, and see which instances it started or reached. */
export function EventsPage() {
  const org = useOrg();
  return (
    <Page title="Messages and signals">
      {org ? (
        <div class="grid-2">
          <MessageForm key={`m-${org.id}`} orgId={org.id} />
          <SignalForm key={`s-${org.id}`} orgId={org.id} />
        </div>
      ) : (
        <p class="muted">You are in no organisation.</p>
      )}
    </Page>
  );
}
