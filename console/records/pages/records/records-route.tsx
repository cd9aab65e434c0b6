import { useRoute } from 'preact-iso';
import { NotFoundPage } from '../not-found.js';
import { CreateRecordPage } from './create-record.js';
import { HistoryPage } from './history-page.js';
import { RecordPage } from './record-page.js';
import { RecordsListPage } from './records-list-page.js';

const schemaSegments = 5;

/**
 * Every page under `/console/records/<org>/<app>/<domain>/<object>/<version>`: the list, `/new`,
 * `/<id>` and `/<id>/history`. A schema path has five segments, so the rest of the URL says which.
 */
export function RecordsRoute() {
  const { params } = useRoute();
  const segments = (params.rest ?? '').split('/').filter(Boolean);
  const path = segments.slice(0, schemaSegments).join('/');
  const [id, extra] = segments.slice(schemaSegments);
  if (segments.length < schemaSegments || segments.length > schemaSegments + 2) return <NotFoundPage />;
  if (id === undefined) return <RecordsListPage key={path} path={path} />;
  if (id === 'new' && extra === undefined) return <CreateRecordPage key={path} path={path} />;
  if (extra === undefined) return <RecordPage key={`${path}/${id}`} path={path} id={id} />;
  if (extra === 'history') return <HistoryPage key={`${path}/${id}`} path={path} id={id} />;
  return <NotFoundPage />;
}
