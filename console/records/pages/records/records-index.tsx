import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { useResource } from '../../../shared/use-resource.js';
import { consoleUrls } from '../../console-urls.js';
import { api, type SchemaEntry } from '../../session.js';

/** `/console/records`: each schema the key may see, linking to its records. */
export function RecordsIndexPage() {
  const schemas = useResource('schemas', (signal) => api.get<{ data: SchemaEntry[] }>('/api', { signal }));
  return (
    <Page title="Records">
      <ErrorNotice error={schemas.error} />
      {schemas.data === undefined ? (
        schemas.error ? null : (
          <Loading />
        )
      ) : (
        <ul class="schema-links">
          {schemas.data.data.map((schema) => (
            <li key={schema.path}>
              <a href={consoleUrls.table(schema.path)}>{schema.displayName}</a>{' '}
              <span class="muted">{schema.description}</span>
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}
