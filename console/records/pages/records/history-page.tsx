import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { useResource } from '../../../shared/use-resource.js';
import { consoleUrls } from '../../console-urls.js';
import { recordsUrl, useSchemaDescription } from '../../schema-description.js';
import { api } from '../../session.js';
import { AsOfPanel } from './as-of-panel.js';
import { AuditPanel } from './audit-panel.js';
import { DiffPanel } from './diff-panel.js';
import { HistoryTimeline, type HistoryEvent } from './history-timeline.js';
import { RestorePanel } from './restore-panel.js';

/**
 * The time machine of one record: its history timeline, the record as of an instant, the diff
 * between two instants, restore with a reason, and audit verification.
 */
export function HistoryPage({ path, id }: { path: string; id: string }) {
  const schema = useSchemaDescription(path);
  const base = `${recordsUrl(path)}/${id}`;
  const events = useResource(`history:${base}`, (signal) =>
    api.get<{ data: HistoryEvent[] }>(`${base}/history?limit=1000`, { signal }).then((r) => r.data),
  );
  const [instant, setInstant] = useState('');
  const title = `History of ${schema.data?.displayName ?? 'record'} ${id.slice(0, 8)}`;
  return (
    <Page title={title} actions={<a href={consoleUrls.record(path, id)}>Back to the record</a>}>
      <ErrorNotice error={schema.error ?? events.error} />
      {events.data === undefined || schema.data === undefined ? (
        events.error || schema.error ? null : (
          <Loading />
        )
      ) : (
        <>
          <HistoryTimeline events={events.data} onPick={setInstant} />
          <div class="grid-2">
            <AsOfPanel base={base} instant={instant} />
            <DiffPanel base={base} events={events.data} />
          </div>
          {schema.data.operations.update ? (
            <RestorePanel base={base} instant={instant} onRestored={events.reload} />
          ) : null}
          <AuditPanel path={path} id={id} />
        </>
      )}
    </Page>
  );
}
