import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { consoleUrls } from '../../console-urls.js';
import { recordsUrl, useSchemaDescription, type RecordData } from '../../schema-description.js';
import { api } from '../../session.js';
import { formValuesOf, payloadOf, type FormValues } from './field-values.js';
import { RecordForm } from './record-form.js';

/** A new record of a schema, through the form generated from its fields (`POST /api/{path}`). */
export function CreateRecordPage({ path }: { path: string }) {
  const schema = useSchemaDescription(path);
  const location = useLocation();
  const [values, setValues] = useState<FormValues | undefined>();
  useEffect(() => {
    if (schema.data && values === undefined) setValues(formValuesOf(schema.data.fields));
  }, [schema.data, values]);
  const title = `New ${schema.data?.displayName ?? 'record'}`;
  return (
    <Page title={title} actions={<a href={consoleUrls.table(path)}>Back to the list</a>}>
      <ErrorNotice error={schema.error} />
      {schema.data === undefined || values === undefined ? (
        <Loading />
      ) : (
        <RecordForm
          label={title}
          fields={schema.data.fields}
          values={values}
          onInput={setValues}
          submitLabel="Create"
          onSubmit={async () => {
            const { body, errors } = payloadOf(schema.data?.fields ?? [], values);
            if (Object.keys(errors).length > 0) return errors;
            const created = await api.post<{ data: RecordData }>(recordsUrl(path), body);
            location.route(consoleUrls.record(path, created.data.id));
          }}
        />
      )}
    </Page>
  );
}
