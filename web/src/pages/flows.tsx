import { api } from '../api';
import { ago, Badge, ErrorLine, money, Section, useReload, useStream } from '../components/common';
import { distinct, useFilters } from '../components/filters';
import { link } from '../router';
import type { RunRecord } from '../types';

/** Every flow run, newest first; refreshed as runs report. */
export function FlowsPage() {
  const list = useReload(() => api<{ runs: RunRecord[]; live: string[]; notices?: string[] }>('/api/flows/runs'), []);
  useStream('/api/events?topics=flow_run_event', () => list.bump());
  const all = list.value?.runs ?? [];
  const live = new Set(list.value?.live ?? []);
  const filters = useFilters<RunRecord>({
    statuses: distinct(all.map((r) => r.status)),
    kinds: distinct(all.map((r) => r.flow)),
    kindLabel: 'flow',
    haystack: (r) => `${r.runId} ${r.flow} ${r.status} ${r.reason?.message ?? ''}`,
    status: (r) => r.status,
    kind: (r) => r.flow,
    createdAt: (r) => r.createdAt,
  });
  const runs = all.filter(filters.keep);
  return (
    <Section title="Flow runs">
      <ErrorLine error={list.error} />
      {(list.value?.notices ?? []).map((notice) => (
        <p class="bad" data-testid="runs-notice" key={notice}>
          {notice}
        </p>
      ))}
      {all.length > 0 ? filters.controls : null}
      {list.value !== undefined && all.length === 0 ? (
        <p class="dim">No runs yet. Start one with `neo flow run plan.yaml`.</p>
      ) : null}
      <table class="list" data-testid="runs">
        <thead>
          <tr>
            <th>status</th>
            <th>run</th>
            <th>flow</th>
            <th>engine</th>
            <th>steps</th>
            <th>cost</th>
            <th>started</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => {
            const steps = Object.values(r.steps);
            const done = steps.filter((s) => s.status === 'succeeded').length;
            return (
              <tr key={r.runId} data-run={r.runId}>
                <td>
                  <Badge value={r.status} />
                  {live.has(r.runId) ? <span class="live-dot" title="a process drives it now" /> : null}
                </td>
                <td>
                  <a {...link(`/flows/${r.runId}`)}>
                    <code>{r.runId}</code>
                  </a>
                  {r.parent ? <span class="dim"> · sub-flow of {r.parent.step}</span> : null}
                </td>
                <td>{r.flow}</td>
                <td data-testid="engine" title={r.executor ? `worker ${r.executor}` : undefined}>
                  {r.engine ?? 'local'}
                </td>
                <td>
                  {done}/{steps.length}
                </td>
                <td>{money(r.ledger.costUsd)}</td>
                <td title={r.createdAt}>{ago(r.createdAt)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Section>
  );
}
