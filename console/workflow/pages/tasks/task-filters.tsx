import { query as toQuery } from '../../../shared/api.js';
import { fieldText } from '../../../shared/form-data.js';
import { base } from '../../session.js';

/** Which tasks the list shows, by the caller's relation to them. */
export type TaskScope = 'all' | 'mine' | 'unassigned' | 'candidate';

const scopes: readonly { value: TaskScope; label: string }[] = [
  { value: 'all', label: 'All open tasks' },
  { value: 'mine', label: 'Assigned to me' },
  { value: 'unassigned', label: 'Unassigned' },
  { value: 'candidate', label: "Tasks I'm a candidate user for" },
];

/** The list's filters and page, as the URL query holds them (`show`, `candidate_group`, `offset`). */
export interface TaskQuery {
  scope: TaskScope;
  /** Candidate group names as typed: one, or several separated by commas (any of them). */
  candidateGroup: string;
  offset: number;
}

/** The filters and page a URL query names; unknown or malformed values fall back to the defaults. */
export function readTaskQuery(query: Record<string, string | undefined>): TaskQuery {
  const scope = scopes.find((option) => option.value === query.show)?.value ?? 'all';
  const offset = Number(query.offset);
  return {
    scope,
    candidateGroup: (query.candidate_group ?? '').trim(),
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
  };
}

/** The console URL of the list with these filters and page. */
export function taskListUrl(query: TaskQuery): string {
  return `${base}/tasks${toQuery({
    show: query.scope === 'all' ? undefined : query.scope,
    candidate_group: query.candidateGroup,
    offset: query.offset === 0 ? undefined : query.offset,
  })}`;
}

/** The query parameters of `GET /api/v1/tasks` for these filters, for the caller with `email`. */
export function taskApiFilter(query: TaskQuery, email: string): Record<string, string | boolean | undefined> {
  return {
    assignee: query.scope === 'mine' ? email : undefined,
    unassigned: query.scope === 'unassigned' ? true : undefined,
    candidate_user: query.scope === 'candidate' ? email : undefined,
    candidate_group: query.candidateGroup || undefined,
  };
}

/**
 * The filter form: choosing what to show applies at once, a candidate group on submit (Apply or
 * Enter); either starts again at the first page.
 */
export function TaskFilters(props: { query: TaskQuery; onApply: (query: TaskQuery) => void }) {
  const { query } = props;
  return (
    <form
      class="filters"
      aria-label="Filter tasks"
      // Uncontrolled fields: a live refresh does not undo what the user is typing; a new query
      // (applied or navigated to) remounts the form with its values.
      key={JSON.stringify(query)}
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        props.onApply({
          scope: readTaskQuery({ show: fieldText(form, 'show') }).scope,
          candidateGroup: fieldText(form, 'candidate_group').trim(),
          offset: 0,
        });
      }}
    >
      <div class="field">
        <label for="filter-show">Show</label>
        <select id="filter-show" name="show" onChange={(event) => event.currentTarget.form?.requestSubmit()}>
          {scopes.map((option) => (
            <option key={option.value} value={option.value} selected={query.scope === option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-candidate_group">Candidate group</label>
        <input
          id="filter-candidate_group"
          name="candidate_group"
          defaultValue={query.candidateGroup}
          placeholder="e.g. sales, support"
        />
      </div>
      <button type="submit" class="primary">
        Apply filters
      </button>
    </form>
  );
}
