import { useEffect, useState } from 'preact/hooks';
import { api, askOtherTabs, hasToken, onUnauthorized } from './api';
import { useStream } from './components/common';
import { ApprovalsPage } from './pages/approvals';
import { FlowsPage } from './pages/flows';
import { RunPage } from './pages/run';
import { SessionPage } from './pages/session';
import { SessionsPage } from './pages/sessions';
import { link, useRoute } from './router';

export function App() {
  const route = useRoute();
  const [authorized, setAuthorized] = useState(hasToken());
  useEffect(() => onUnauthorized(() => setAuthorized(false)), []);
  // Once, at load: a token refused later (401) is not fetched again from tabs that hold the same one.
  useEffect(() => (hasToken() ? undefined : askOtherTabs(() => setAuthorized(true))), []);
  if (!authorized)
    return (
      <main class="signin">
        <h1>neo</h1>
        <p>
          Open the URL that <code>neo serve</code> printed: it carries this server's token. (A new server start makes a
          new URL only when the token file was deleted.)
        </p>
      </main>
    );
  return (
    <>
      <Nav page={route.page} />
      <main>
        {route.page === 'sessions' ? <SessionsPage /> : null}
        {route.page === 'session' ? <SessionPage key={route.id} id={route.id} /> : null}
        {route.page === 'flows' ? <FlowsPage /> : null}
        {route.page === 'run' ? <RunPage key={route.id} id={route.id} /> : null}
        {route.page === 'approvals' ? <ApprovalsPage /> : null}
      </main>
    </>
  );
}

function Nav({ page }: { page: string }) {
  const [waiting, setWaiting] = useState(0);
  const refresh = () =>
    void api<{ items: unknown[]; sessions: unknown[] }>('/api/approvals').then(
      (r) => setWaiting(r.items.length + r.sessions.length),
      () => undefined,
    );
  useEffect(refresh, []);
  const state = useStream(
    '/api/events?topics=approval_requested,flow_run_event,code_session_changed,capability_updates',
    (e) => {
      if (e.event === 'capability_updates') return notifyUpdates(e.data as UpdatesNotice);
      if (e.event === 'approval_requested') notify(e.data as { prompt?: string; key?: string });
      if (e.event === 'approval_requested' || (e.data as { type?: string }).type !== 'progress') refresh();
    },
  );
  const tab = (pages: string[], path: string, label: string) => (
    <a {...link(path)} class={pages.includes(page) ? 'active' : ''}>
      {label}
    </a>
  );
  return (
    <nav class="top">
      <span class="brand">neo</span>
      {tab(['sessions', 'session'], '/sessions', 'Sessions')}
      {tab(['flows', 'run'], '/flows', 'Flows')}
      <a {...link('/approvals')} class={page === 'approvals' ? 'active' : ''} data-testid="nav-approvals">
        Needs you
        {waiting > 0 ? (
          <span class="count" data-testid="needs-you-count">
            {waiting}
          </span>
        ) : null}
      </a>
      <span
        class={`conn conn-${state}`}
        data-testid="conn"
        title={state === 'retrying' ? 'the server went away: looking for it again every second' : `live feed: ${state}`}
      >
        {state === 'open' ? 'live' : state === 'retrying' ? 'reconnecting' : state}
      </span>
    </nav>
  );
}

interface UpdatesNotice {
  updates: Array<{ id: string; pinned: string; latest?: string }>;
}

/**
 * The weekly capability refresh's one notice: pinned sources with a newer version or commit
 * (bumping a pin stays a reviewed catalog edit; `neo capabilities check-updates` lists them).
 */
function notifyUpdates(notice: UpdatesNotice): void {
  if (typeof Notification !== 'function' || Notification.permission !== 'granted') return;
  const short = (v: string | undefined) => (v !== undefined && /^[0-9a-f]{40}$/.test(v) ? v.slice(0, 10) : (v ?? '?'));
  try {
    new Notification('neo: capability updates', {
      body: notice.updates.map((u) => `${u.id} ${short(u.pinned)} → ${short(u.latest)}`).join(', '),
      tag: 'capability-updates',
    });
  } catch {
    // As for approvals below.
  }
}

/**
 * A desktop notification for a new approval or question, when the person allowed them (the
 * "Notify me" button on the Needs you page asks). Its text is the prompt, as plain text.
 */
function notify(item: { prompt?: string; key?: string }): void {
  if (typeof Notification !== 'function' || Notification.permission !== 'granted') return;
  try {
    new Notification('neo needs you', {
      body: `${item.key ?? ''}: ${item.prompt ?? 'an approval is waiting'}`,
      tag: item.key,
    });
  } catch {
    // A browser that refuses page notifications (some only allow them from a service worker).
  }
}
