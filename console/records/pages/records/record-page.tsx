import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { consoleUrls } from '../../console-urls.js';
import { displayValue, recordsUrl, useSchemaDescription, type RecordData } from '../../schema-description.js';
import { api } from '../../session.js';
import { formValuesOf, payloadOf, type FormValues } from './field-values.js';
import { RecordForm } from './record-form.js';
import { VersionConflict } from './version-conflict.js';

const systemFields = ['id', 'version', 'created_at', 'created_by', 'updated_at', 'updated_by'];

/**
 * One record: its system fields and the edit form. Saving sends the changed fields with the
 * version the form was loaded at (`PATCH`, optimistic locking); a 409 shows the conflict.
 */
export function RecordPage({ path, id }: { path: string; id: string }) {
  const schema = useSchemaDescription(path);
  const [loaded, setLoaded] = useState<RecordData | undefined>();
  const [values, setValues] = useState<FormValues>({});
  const [loadError, setLoadError] = useState<Error | undefined>();
  const [conflict, setConflict] = useState<{ current: RecordData; expected: number } | undefined>();
  const [saved, setSaved] = useState<number | undefined>();
  const fields = schema.data?.fields ?? [];

  const fetchRecord = () => api.get<{ data: RecordData }>(`${recordsUrl(path)}/${id}`).then((r) => r.data);
  const show = (record: RecordData) => {
    setLoaded(record);
    setValues(formValuesOf(fields, record));
  };
  useEffect(() => {
    if (schema.data === undefined) return;
    fetchRecord().then(show, (failure: Error) => setLoadError(failure));
  }, [schema.data, path, id]);

  const title = `${schema.data?.displayName ?? 'Record'} ${id.slice(0, 8)}`;
  return (
    <Page
      title={title}
      actions={
        <>
          <a href={consoleUrls.table(path)}>Back to the list</a>
          {schema.data?.timeMachine ? <a href={consoleUrls.history(path, id)}>History</a> : null}
        </>
      }
    >
      <ErrorNotice error={schema.error ?? loadError} />
      {schema.data === undefined || loaded === undefined ? (
        loadError ? null : (
          <Loading />
        )
      ) : (
        <>
          <dl class="system-fields">
            {systemFields.map((name) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>{displayValue(loaded[name])}</dd>
              </div>
            ))}
          </dl>
          {saved !== undefined ? (
            <p class="notice" role="status">
              Saved: version {saved}.
            </p>
          ) : null}
          {conflict ? (
            <VersionConflict
              fields={fields}
              current={conflict.current}
              mine={values}
              expected={conflict.expected}
              onTakeCurrent={() => {
                show(conflict.current);
                setConflict(undefined);
              }}
              onKeepMine={() => {
                setLoaded(conflict.current);
                setConflict(undefined);
              }}
            />
          ) : null}
          {schema.data.operations.update ? (
            <RecordForm
              label={`Edit ${title}`}
              fields={fields}
              values={values}
              onInput={setValues}
              submitLabel={`Save (version ${loaded.version})`}
              onSubmit={async () => {
                setSaved(undefined);
                const { body, errors } = payloadOf(fields, values, loaded);
                if (Object.keys(errors).length > 0) return errors;
                try {
                  await api.patch(`${recordsUrl(path)}/${id}`, { ...body, version: loaded.version });
                } catch (failure) {
                  if (failure instanceof ApiError && failure.code === 'OPTIMISTIC_LOCK_FAILED') {
                    setConflict({ current: await fetchRecord(), expected: loaded.version });
                    return;
                  }
                  throw failure;
                }
                const fresh = await fetchRecord();
                show(fresh);
                setSaved(fresh.version);
              }}
            />
          ) : (
            <p class="muted">You may read this record but not change it.</p>
          )}
        </>
      )}
    </Page>
  );
}
