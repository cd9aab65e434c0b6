import { ErrorNotice } from '../../shared/components/error-notice.js';
import { Loading } from '../../shared/components/page.js';
import { consoleUrls } from '../console-urls.js';
import { constraintsOf, useSchemaDescription, type SchemaDescription } from '../schema-description.js';

const flags = (field: SchemaDescription['fields'][number]) =>
  [field.filterable && 'filterable', field.sortable && 'sortable', field.searchable && 'searchable']
    .filter(Boolean)
    .join(', ');

const access = (field: SchemaDescription['fields'][number]) =>
  field.readable
    ? field.writable
      ? 'read, write'
      : 'read only'
    : field.writable
      ? 'write only (hidden)'
      : 'hidden';

/** One schema's fields with their types, constraints and flags, and what the caller may do with them. */
export function SchemaFields({ path, title }: { path: string; title: string }) {
  const schema = useSchemaDescription(path);
  const headingId = `schema-${path.replace(/[^a-z0-9]/g, '-')}`;
  return (
    <section class="schema-card" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <ErrorNotice error={schema.error} />
      {schema.data === undefined ? (
        schema.error ? null : (
          <Loading />
        )
      ) : (
        <>
          <p class="muted">
            <code>{path}</code> · search tier {schema.data.searchTier} · time machine{' '}
            {schema.data.timeMachine ? 'on' : 'off'} · you may{' '}
            {Object.entries(schema.data.operations)
              .filter(([, allowed]) => allowed)
              .map(([operation]) => operation)
              .join(', ') || 'nothing'}
          </p>
          <p>
            <a href={consoleUrls.table(path)}>Browse {title} records</a>
          </p>
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Fields of {title}</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Type</th>
                  <th scope="col">Constraints</th>
                  <th scope="col">Flags</th>
                  <th scope="col">Your access</th>
                </tr>
              </thead>
              <tbody>
                {schema.data.fields.map((field) => (
                  <tr key={field.name}>
                    <th scope="row">
                      <code>{field.name}</code>
                    </th>
                    <td>{field.type}</td>
                    <td>{constraintsOf(field).join('; ')}</td>
                    <td>{flags(field)}</td>
                    <td>{access(field)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
