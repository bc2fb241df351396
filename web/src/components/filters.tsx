import { useState } from 'preact/hooks';

/** Ages a list can be narrowed to, newest first. */
const AGES: Array<[string, number]> = [
  ['any age', Number.POSITIVE_INFINITY],
  ['last hour', 3_600_000],
  ['last day', 86_400_000],
  ['last week', 7 * 86_400_000],
];

export interface FilterState {
  text: string;
  status: string;
  kind: string;
  maxAgeMs: number;
}

/**
 * A list's filters: free text (matched against what `haystack` gives for a row), a status, a
 * second facet (`kinds`: backends for sessions, flows for runs) and an age. Returns the controls
 * and a predicate over rows.
 */
export function useFilters<T>(options: {
  statuses: string[];
  kinds: string[];
  kindLabel: string;
  haystack: (row: T) => string;
  status: (row: T) => string;
  kind: (row: T) => string;
  createdAt: (row: T) => string;
}) {
  const [state, setState] = useState<FilterState>({
    text: '',
    status: '',
    kind: '',
    maxAgeMs: Number.POSITIVE_INFINITY,
  });
  const set = (patch: Partial<FilterState>) => setState({ ...state, ...patch });
  const needle = state.text.trim().toLowerCase();
  const keep = (row: T) =>
    (needle === '' || options.haystack(row).toLowerCase().includes(needle)) &&
    (state.status === '' || options.status(row) === state.status) &&
    (state.kind === '' || options.kind(row) === state.kind) &&
    Date.now() - Date.parse(options.createdAt(row)) <= state.maxAgeMs;
  const value = (e: Event) => (e.target as HTMLInputElement | HTMLSelectElement).value;
  const controls = (
    <div class="filters" data-testid="filters">
      <input
        placeholder="search"
        value={state.text}
        data-testid="filter-text"
        onInput={(e) => set({ text: value(e) })}
      />
      <select data-testid="filter-status" value={state.status} onChange={(e) => set({ status: value(e) })}>
        <option value="">any status</option>
        {options.statuses.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <select data-testid="filter-kind" value={state.kind} onChange={(e) => set({ kind: value(e) })}>
        <option value="">any {options.kindLabel}</option>
        {options.kinds.map((k) => (
          <option key={k} value={k}>
            {k}
          </option>
        ))}
      </select>
      <select
        data-testid="filter-age"
        value={String(state.maxAgeMs)}
        onChange={(e) => set({ maxAgeMs: Number(value(e)) })}
      >
        {AGES.map(([label, ms]) => (
          <option key={label} value={String(ms)}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
  return { controls, keep };
}

/** The distinct values of a list, sorted. */
export function distinct(values: string[]): string[] {
  return [...new Set(values)].sort();
}
