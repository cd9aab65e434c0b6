import { useState } from 'preact/hooks';
import type { FieldDescription } from '../../schema-description.js';

/** One filter of the list: `filter[field]` (eq) or `filter[field][op]`. */
export interface ListFilter {
  field: string;
  op: string;
  value: string;
}

/** The list's query parameters for `filters` (empty values are left out, `exists` defaults to true). */
export function filterParameters(filters: ListFilter[]): Record<string, string> {
  const parameters: Record<string, string> = {};
  for (const filter of filters) {
    const value = filter.op === 'exists' && filter.value === '' ? 'true' : filter.value;
    if (value === '') continue;
    parameters[filter.op === 'eq' ? `filter[${filter.field}]` : `filter[${filter.field}][${filter.op}]`] =
      value;
  }
  return parameters;
}

const operatorLabels: Record<string, string> = {
  eq: '=',
  ne: '≠',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  in: 'in (comma-separated)',
  exists: 'exists (true/false)',
};

/** A row per filterable field: operator and value. Applied together with the Apply button. */
export function ListFilters(props: {
  fields: FieldDescription[];
  operators: string[];
  onApply: (filters: ListFilter[]) => void;
}) {
  const filterable = props.fields.filter((field) => field.filterable && field.readable);
  const [draft, setDraft] = useState<Record<string, ListFilter>>(() =>
    Object.fromEntries(filterable.map((field) => [field.name, { field: field.name, op: 'eq', value: '' }])),
  );
  const update = (name: string, change: Partial<ListFilter>) =>
    setDraft((current) => ({ ...current, [name]: { ...(current[name] as ListFilter), ...change } }));
  if (filterable.length === 0) return null;
  return (
    <details class="filters">
      <summary>Filters</summary>
      <form
        aria-label="Filters"
        onSubmit={(event) => {
          event.preventDefault();
          props.onApply(Object.values(draft));
        }}
      >
        <div class="filter-grid">
          {filterable.map((field) => {
            const filter = draft[field.name] as ListFilter;
            return (
              <fieldset key={field.name}>
                <legend>{field.name}</legend>
                <label class="visually-hidden" for={`filter-${field.name}-op`}>
                  {field.name} operator
                </label>
                <select
                  id={`filter-${field.name}-op`}
                  value={filter.op}
                  onChange={(e) => update(field.name, { op: e.currentTarget.value })}
                >
                  {props.operators.map((op) => (
                    <option key={op} value={op}>
                      {operatorLabels[op] ?? op}
                    </option>
                  ))}
                </select>
                <label class="visually-hidden" for={`filter-${field.name}-value`}>
                  {field.name} value
                </label>
                {field.enum && filter.op !== 'in' && filter.op !== 'exists' ? (
                  <select
                    id={`filter-${field.name}-value`}
                    value={filter.value}
                    onChange={(e) => update(field.name, { value: e.currentTarget.value })}
                  >
                    <option value="">(any)</option>
                    {field.enum.map((option) => (
                      <option key={option} value={option}>
                        {option}
                      </option>
                    ))}
                  </select>
                ) : (
                  <input
                    id={`filter-${field.name}-value`}
                    value={filter.value}
                    placeholder={field.type}
                    onInput={(e) => update(field.name, { value: e.currentTarget.value })}
                  />
                )}
              </fieldset>
            );
          })}
        </div>
        <div class="actions">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            onClick={() => {
              const cleared = Object.fromEntries(
                filterable.map((field) => [field.name, { field: field.name, op: 'eq', value: '' }]),
              );
              setDraft(cleared);
              props.onApply(Object.values(cleared));
            }}
          >
            Clear filters
          </button>
        </div>
      </form>
    </details>
  );
}
