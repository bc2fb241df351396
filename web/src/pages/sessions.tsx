import { api } from '../api';
import { ago, Badge, ErrorLine, money, PostureBadge, Section, useReload, useStream } from '../components/common';
import { distinct, useFilters } from '../components/filters';
import { link } from '../router';
import type { SessionRecord } from '../types';

/** Every recorded code session, newest first, kept current by the live feed. */
export function SessionsPage() {
  const list = useReload(() => api<{ sessions: SessionRecord[]; live: string[] }>('/api/code-sessions'), []);
  useStream('/api/events?topics=code_session_changed', () => list.bump());
  const all = list.value?.sessions ?? [];
  const live = new Set(list.value?.live ?? []);
  const filters = useFilters<SessionRecord>({
    statuses: distinct(all.map((s) => s.status)),
    kinds: distinct(all.map((s) => s.backendId)),
    kindLabel: 'backend',
    haystack: (s) => `${s.sessionId} ${s.taskBrief} ${s.backendId} ${s.model ?? ''} ${s.status}`,
    status: (s) => s.status,
    kind: (s) => s.backendId,
    createdAt: (s) => s.createdAt,
  });
  const sessions = all.filter(filters.keep);
  return (
    <Section title="Code sessions">
      <ErrorLine error={list.error} />
      {all.length > 0 ? filters.controls : null}
      {list.value !== undefined && all.length === 0 ? (
        <p class="dim">No sessions yet. Start one with `neo session start`, or run a flow.</p>
      ) : null}
      <table class="list" data-testid="sessions">
        <thead>
          <tr>
            <th>status</th>
            <th>brief</th>
            <th>backend</th>
            <th>model</th>
            <th>posture</th>
            <th>rounds</th>
            <th>cost</th>
            <th>started</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr key={s.sessionId} data-session={s.sessionId}>
              <td>
                <Badge
                  value={s.state === 'awaitingAnswer' && live.has(s.sessionId) ? 'waiting' : s.status}
                  title={s.state}
                />
                {live.has(s.sessionId) ? <span class="live-dot" title="live: reachable from here" /> : null}
              </td>
              <td class="brief">
                <a {...link(`/sessions/${s.sessionId}`)}>{s.taskBrief.split('\n')[0]!.slice(0, 90) || s.sessionId}</a>
              </td>
              <td>{s.backendId}</td>
              <td>{s.model ?? '—'}</td>
              <td>
                <PostureBadge posture={s.posture} max={s.maxPosture} />
              </td>
              <td>
                {s.roundsElapsed}
                {s.maxRounds === undefined ? '' : `/${s.maxRounds}`}
              </td>
              <td>{money(s.costUsd)}</td>
              <td title={s.createdAt}>{ago(s.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
