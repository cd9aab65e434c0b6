import { ErrorNotice } from '../../shared/components/error-notice.js';
import { Loading, Page } from '../../shared/components/page.js';
import { useResource } from '../../shared/use-resource.js';
import { consoleUrls } from '../console-urls.js';
import { api, type SchemaEntry } from '../session.js';
import { SchemaFields } from './schema-fields.js';

/** The schemas the key may see, from `GET /api`, each with its fields (`GET /api/{path}/_schema`). */
export function SchemasPage() {
  const schemas = useResource('schemas', (signal) => api.get<{ data: SchemaEntry[] }>('/api', { signal }), {
    refreshMs: 10_000,
  });
  return (
    <Page title="Schemas">
      <ErrorNotice error={schemas.error} />
      {schemas.data === undefined ? (
        <Loading />
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Schema</th>
                <th scope="col">Path</th>
                <th scope="col">Fields</th>
                <th scope="col">Search tier</th>
                <th scope="col">Time machine</th>
              </tr>
            </thead>
            <tbody>
              {schemas.data.data.map((schema) => (
                <tr key={schema.path}>
                  <td>
                    <a href={consoleUrls.table(schema.path)}>{schema.displayName}</a>
                  </td>
                  <td>
                    <code>{schema.path}</code>
                  </td>
                  <td>{schema.fields}</td>
                  <td>{schema.searchTier}</td>
                  <td>{schema.hasTimeMachine ? 'yes' : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {schemas.data?.data.map((schema) => (
        <SchemaFields key={schema.path} path={schema.path} title={schema.displayName} />
      ))}
    </Page>
  );
}
