import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorLine, Section, useReload, useStream } from '../components/common';
import { link } from '../router';
import type { InboxItem } from '../types';
import { ApprovalForm } from './run';

/** A live session blocked on a permission question. */
interface WaitingSession {
  sessionId: string;
  taskBrief: string;
  backendId: string;
  updatedAt: string;
}

/**
 * What needs a person: every approval step and persona question waiting (answerable here) and
 * every live session blocked on a permission question (answered on its page).
 */
export function ApprovalsPage() {
  const inbox = useReload(() => api<{ items: InboxItem[]; sessions: WaitingSession[] }>('/api/approvals'), []);
  useStream('/api/events?topics=approval_requested,flow_run_event,code_session_changed', () => inbox.bump());
  const waiting = inbox.value?.sessions ?? [];
  // An item answered here stays on the page with what was recorded, after the inbox drops it.
  const [kept, setKept] = useState<InboxItem[]>([]);
  const keyOf = (item: InboxItem) => `${item.runId}/${item.key}`;
  const open = inbox.value?.items ?? [];
  const items = [...open, ...kept.filter((k) => !open.some((i) => keyOf(i) === keyOf(k)))];
  return (
    <Section title="Needs you" actions={<NotifyButton />}>
      <ErrorLine error={inbox.error} />
      {inbox.value !== undefined && open.length === 0 && waiting.length === 0 ? (
        <p class="dim">Nothing is waiting for you.</p>
      ) : null}
      <ul class="inbox" data-testid="inbox">
        {items.map((item) => (
          <li key={keyOf(item)} data-key={item.key}>
            <div class="facts-inline">
              <strong>{item.key}</strong>
              {item.kind === 'flow' ? (
                <a {...link(`/flows/${item.runId}`)}>
                  {item.flow ?? 'run'} <code>{item.runId}</code>
                </a>
              ) : item.kind === 'capability' ? (
                <span>capability for code sessions</span>
              ) : (
                <span>
                  question of <code>{item.runId}</code>
                </span>
              )}
              {item.live ? null : (
                <span class="dim">
                  {item.kind === 'capability'
                    ? 'no session waits: the next one in the project picks it up'
                    : 'no process waits: applies on resume'}
                </span>
              )}
            </div>
            <ApprovalForm
              prompt={item.prompt}
              decisions={item.decisions}
              {...(item.detail === undefined ? {} : { detail: item.detail })}
              onAnswer={(decision, reason) => {
                setKept((k) => [...k.filter((x) => keyOf(x) !== keyOf(item)), item]);
                return api(`/api/approvals/${item.runId}/${item.key}`, {
                  decision,
                  ...(reason ? { reason } : {}),
                }).finally(() => inbox.bump());
              }}
            />
          </li>
        ))}
      </ul>
      {waiting.length === 0 ? null : (
        <>
          <h3>Sessions asking for permission</h3>
          <ul class="inbox" data-testid="waiting-sessions">
            {waiting.map((s) => (
              <li key={s.sessionId} data-session={s.sessionId}>
                <a {...link(`/sessions/${s.sessionId}`)}>{s.taskBrief.split('\n')[0]!.slice(0, 90) || s.sessionId}</a>{' '}
                <span class="dim">
                  {s.backendId} · waiting since {new Date(s.updatedAt).toLocaleTimeString([], { hour12: false })}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </Section>
  );
}

/** Asks the browser for desktop notifications, while it has not been asked yet. */
function NotifyButton() {
  const [permission, setPermission] = useState(typeof Notification === 'function' ? Notification.permission : 'denied');
  if (permission !== 'default') return null;
  return (
    <button
      data-testid="notify-me"
      title="a desktop notification when an approval or question starts waiting"
      onClick={() => void Notification.requestPermission().then(setPermission)}
    >
      Notify me
    </button>
  );
}
