import { fieldText } from '../../../shared/form-data.js';
import type { ProcessDefinition } from '../../types.js';
import { instanceStates } from './model.js';

/** The list's filters, as the URL query holds them (names of the API's query parameters). */
export type InstanceQuery = Partial<
  Record<
    | 'process_key'
    | 'definition_id'
    | 'state'
    | 'business_key'
    | 'has_incident'
    | 'element_id'
    | 'started_after'
    | 'started_before'
    | 'cursor',
    string
  >
>;

/** `YYYY-MM-DDTHH:mm` in local time, as a datetime-local input shows an ISO time. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function toIso(local: string): string | undefined {
  if (local === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The filter form; submitting it replaces the query (and starts again at the first page). */
export function InstanceFilters(props: {
  query: InstanceQuery;
  definitions: ProcessDefinition[];
  onApply: (query: InstanceQuery) => void;
}) {
  const { query } = props;
  const keys = [...new Set(props.definitions.map((definition) => definition.process_key))].sort();
  const versions = props.definitions.filter(
    (definition) => !definition.draft && (!query.process_key || definition.process_key === query.process_key),
  );
  return (
    <form
      class="filters"
      aria-label="Filter instances"
      // Uncontrolled fields: a live refresh re-renders the form without undoing what the user is
      // typing; a new query (applied or navigated to) remounts it with that query's values.
      key={JSON.stringify(query)}
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        props.onApply({
          process_key: fieldText(form, 'process_key') || undefined,
          definition_id: fieldText(form, 'definition_id') || undefined,
          state: fieldText(form, 'state') || undefined,
          business_key: fieldText(form, 'business_key').trim() || undefined,
          has_incident: fieldText(form, 'has_incident') || undefined,
          element_id: fieldText(form, 'element_id').trim() || undefined,
          started_after: toIso(fieldText(form, 'started_after')),
          started_before: toIso(fieldText(form, 'started_before')),
        });
      }}
    >
      <div class="field">
        <label for="filter-process_key">Process</label>
        <select id="filter-process_key" name="process_key">
          <option value="">Any</option>
          {keys.map((key) => (
            <option key={key} value={key} selected={query.process_key === key}>
              {key}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-definition_id">Version</label>
        <select id="filter-definition_id" name="definition_id">
          <option value="">Any</option>
          {versions.map((definition) => (
            <option
              key={definition.id}
              value={definition.id}
              selected={query.definition_id === definition.id}
            >
              {definition.process_key} v{definition.version}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-state">State</label>
        <select id="filter-state" name="state">
          <option value="">Any</option>
          {instanceStates.map((state) => (
            <option key={state} value={state} selected={query.state === state}>
              {state}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-has_incident">Incident</label>
        <select id="filter-has_incident" name="has_incident">
          <option value="">Any</option>
          <option value="true" selected={query.has_incident === 'true'}>
            With an open incident
          </option>
          <option value="false" selected={query.has_incident === 'false'}>
            Without incident
          </option>
        </select>
      </div>
      <div class="field">
        <label for="filter-business_key">Business key</label>
        <input id="filter-business_key" name="business_key" defaultValue={query.business_key ?? ''} />
      </div>
      <div class="field">
        <label for="filter-element_id">Waiting at element</label>
        <input
          id="filter-element_id"
          name="element_id"
          defaultValue={query.element_id ?? ''}
          placeholder="element id"
        />
      </div>
      <div class="field">
        <label for="filter-started_after">Started from</label>
        <input
          type="datetime-local"
          id="filter-started_after"
          name="started_after"
          defaultValue={toLocalInput(query.started_after)}
        />
      </div>
      <div class="field">
        <label for="filter-started_before">Started before</label>
        <input
          type="datetime-local"
          id="filter-started_before"
          name="started_before"
          defaultValue={toLocalInput(query.started_before)}
        />
      </div>
      <button type="submit" class="primary">
        Apply filters
      </button>
    </form>
  );
}
