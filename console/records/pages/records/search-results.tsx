import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading } from '../../../shared/components/page.js';
import { query } from '../../../shared/api.js';
import { useResource } from '../../../shared/use-resource.js';
import { consoleUrls } from '../../console-urls.js';
import {
  displayValue,
  recordsUrl,
  type RecordData,
  type SchemaDescription,
} from '../../schema-description.js';
import { api } from '../../session.js';
import { RecordsTable } from './records-table.js';

interface OrgHit {
  schema: string;
  id: string;
  fields: Record<string, unknown>;
}

/**
 * Full-text search of one schema: tier 3 through `POST /{path}/search` (ranked records), tier 2
 * through the org search `GET /{org}/search`, keeping this schema's hits (its searchable fields).
 */
export function SearchResults({ schema, q }: { schema: SchemaDescription; q: string }) {
  const ranked = schema.searchTier >= 3;
  const org = schema.path.split('/')[0] ?? '';
  const results = useResource(`search:${schema.path}:${q}`, async (signal) =>
    ranked
      ? {
          records: (
            await api.post<{ data: (RecordData & { _text_match: number })[] }>(
              `${recordsUrl(schema.path)}/search`,
              { q, limit: 50 },
              { signal },
            )
          ).data,
        }
      : {
          hits: (
            await api.get<{ data: OrgHit[] }>(`/api/${org}/search${query({ q, limit: 100 })}`, { signal })
          ).data.filter((hit) => hit.schema === schema.path),
        },
  );
  return (
    <section aria-label="Search results">
      <ErrorNotice error={results.error} />
      {results.data === undefined ? (
        results.error ? null : (
          <Loading />
        )
      ) : 'records' in results.data && results.data.records ? (
        <RecordsTable
          path={schema.path}
          title={schema.displayName}
          fields={schema.fields}
          records={results.data.records}
          withScore
        />
      ) : (
        <ul class="hits">
          {(results.data.hits ?? []).length === 0 ? <li>No match.</li> : null}
          {(results.data.hits ?? []).map((hit) => (
            <li key={hit.id}>
              <a href={consoleUrls.record(schema.path, hit.id)}>
                {Object.values(hit.fields).map(displayValue).filter(Boolean).join(' · ') || hit.id}
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
