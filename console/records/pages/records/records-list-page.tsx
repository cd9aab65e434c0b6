import { useState } from 'preact/hooks';
import { query } from '../../../shared/api.js';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { useResource } from '../../../shared/use-resource.js';
import { consoleUrls } from '../../console-urls.js';
import {
  recordsUrl,
  useSchemaDescription,
  type RecordData,
  type SchemaDescription,
} from '../../schema-description.js';
import { api } from '../../session.js';
import { filterParameters, ListFilters, type ListFilter } from './list-filters.js';
import { RecordsTable } from './records-table.js';
import { SearchResults } from './search-results.js';

interface Page_ {
  data: RecordData[];
  pagination: { cursor: string | null; has_more: boolean };
}

const pageSize = 20;

/** A schema's records: sort, filters on every filterable field, cursor paging, full-text search (tier 2/3). */
export function RecordsListPage({ path }: { path: string }) {
  const schema = useSchemaDescription(path);
  return (
    <Page
      title={schema.data?.displayName ?? 'Records'}
      actions={schema.data?.operations.create ? <a href={consoleUrls.create(path)}>New record</a> : undefined}
    >
      <ErrorNotice error={schema.error} />
      {schema.data === undefined ? (
        schema.error ? null : (
          <Loading />
        )
      ) : (
        <RecordsBrowser schema={schema.data} />
      )}
    </Page>
  );
}

function RecordsBrowser({ schema }: { schema: SchemaDescription }) {
  const [filters, setFilters] = useState<ListFilter[]>([]);
  const [sortField, setSortField] = useState('created_at');
  const [descending, setDescending] = useState(false);
  const [cursors, setCursors] = useState<string[]>([]);
  const [search, setSearch] = useState('');
  const cursor = cursors[cursors.length - 1];
  const sortable = schema.fields.filter((field) => field.sortable && field.readable);
  const parameters = {
    ...filterParameters(filters),
    sort: `${descending ? '-' : ''}${sortField}`,
    limit: pageSize,
    cursor,
  };
  const url = `${recordsUrl(schema.path)}${query(parameters)}`;
  const page = useResource(url, (signal) => api.get<Page_>(url, { signal }), { refreshMs: 10_000 });
  const resetPaging = () => setCursors([]);

  return (
    <>
      {schema.searchTier >= 2 ? (
        <form
          class="search"
          role="search"
          aria-label={`Search ${schema.displayName}`}
          onSubmit={(event) => {
            event.preventDefault();
            const input = event.currentTarget.elements.namedItem('q') as HTMLInputElement;
            setSearch(input.value.trim());
          }}
        >
          <label>
            Full-text search
            <input name="q" type="search" />
          </label>
          <button type="submit">Search</button>
          {search !== '' ? (
            <button type="button" onClick={() => setSearch('')}>
              Clear search
            </button>
          ) : null}
        </form>
      ) : null}
      {search !== '' ? (
        <SearchResults schema={schema} q={search} />
      ) : (
        <>
          <div class="list-controls">
            <label for="sort-field">Sort by</label>
            <select
              id="sort-field"
              value={sortField}
              onChange={(event) => {
                setSortField(event.currentTarget.value);
                resetPaging();
              }}
            >
              <option value="created_at">created_at</option>
              {sortable.map((field) => (
                <option key={field.name} value={field.name}>
                  {field.name}
                </option>
              ))}
            </select>
            <label for="sort-order">Order</label>
            <select
              id="sort-order"
              value={descending ? 'desc' : 'asc'}
              onChange={(event) => {
                setDescending(event.currentTarget.value === 'desc');
                resetPaging();
              }}
            >
              <option value="asc">ascending</option>
              <option value="desc">descending</option>
            </select>
          </div>
          <ListFilters
            fields={schema.fields}
            operators={schema.filterOperators}
            onApply={(next) => {
              setFilters(next);
              resetPaging();
            }}
          />
          <ErrorNotice error={page.error} />
          {page.data === undefined ? (
            page.error ? null : (
              <Loading />
            )
          ) : (
            <>
              <RecordsTable
                path={schema.path}
                title={schema.displayName}
                fields={schema.fields}
                records={page.data.data}
              />
              <nav class="pager" aria-label="Pages">
                <button
                  type="button"
                  disabled={cursors.length === 0}
                  onClick={() => setCursors(cursors.slice(0, -1))}
                >
                  Previous page
                </button>
                <span>Page {cursors.length + 1}</span>
                <button
                  type="button"
                  disabled={!page.data.pagination.has_more || !page.data.pagination.cursor}
                  onClick={() => {
                    const next = page.data?.pagination.cursor;
                    if (next) setCursors([...cursors, next]);
                  }}
                >
                  Next page
                </button>
              </nav>
            </>
          )}
        </>
      )}
    </>
  );
}
