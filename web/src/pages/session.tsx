import { useState } from 'preact/hooks';
import { api } from '../api';
import { Badge, ErrorLine, money, PostureBadge, Section, useReload, useStream } from '../components/common';
import { Checklist, latestChecklist } from '../components/checklist';
import { CapabilityFacts } from '../components/capabilities';
import { DiffView } from '../components/diff-view';
import { foldFeed, timesOf, type FeedItem } from '../components/feed';
import { LongText } from '../components/long-text';
import type { FeedEvent, SessionDetail } from '../types';

/** One session: its record, the live feed, a person's controls, and the terminal-attach row. */
export function SessionPage({ id }: { id: string }) {
  const detail = useReload(() => api<SessionDetail>(`/api/code-sessions/${encodeURIComponent(id)}?limit=0`), [id]);
  const [events, setEvents] = useState<FeedEvent[]>([]);
  const feedState = useStream(`/api/code-sessions/${encodeURIComponent(id)}/events`, (e) => {
    const item = e.data as FeedEvent;
    // A reconnect resumes after the last id, so every event comes once; the check is a guard.
    setEvents((all) => (all.length > 0 && all[all.length - 1]!.seq >= item.seq ? all : [...all, item]));
  });
  useStream(`/api/events?topics=code_session_changed&sessionId=${encodeURIComponent(id)}`, () => detail.bump());
  const [action, setAction] = useState<unknown>(undefined);
  const run = (call: () => Promise<unknown>) =>
    call().then(() => {
      setAction(undefined);
      detail.bump();
    }, setAction);

  const d = detail.value;
  if (d === undefined) return <ErrorLine error={detail.error} />;
  const r = d.record;
  const resumable = !d.live && ['ended', 'failed', 'orphaned'].includes(r.status);
  return (
    <div class="page">
      <Section
        title={r.taskBrief.split('\n')[0]!.slice(0, 120) || r.sessionId}
        actions={
          <>
            {d.live ? (
              <button onClick={() => run(() => api(`/api/code-sessions/${id}/interrupt`, {}))}>Interrupt</button>
            ) : null}
            {d.live || d.held ? (
              <button
                data-testid="stop"
                title={
                  d.live
                    ? 'end the session now (aborted) and release it'
                    : 'its agent ended: release what still holds it'
                }
                onClick={() => run(() => api(`/api/code-sessions/${id}/stop`, d.live ? { outcome: 'aborted' } : {}))}
              >
                {d.live ? 'Stop' : 'Release'}
              </button>
            ) : null}
            {resumable ? (
              <button
                class="primary"
                data-testid="resume"
                onClick={() => run(() => api(`/api/code-sessions/${id}/resume`, {}))}
              >
                Resume
              </button>
            ) : null}
          </>
        }
      >
        <dl class="facts">
          <dt>status</dt>
          <dd>
            <Badge value={r.status} title={r.state} /> {d.live ? <span class="live-dot" title="live" /> : null}{' '}
            {r.state}
          </dd>
          <dt>backend</dt>
          <dd>
            {r.backendId}
            {r.model ? ` · ${r.model}` : ''}
          </dd>
          <dt>posture</dt>
          <dd>
            <PostureBadge posture={r.posture} max={r.maxPosture} />
          </dd>
          <dt>rounds</dt>
          <dd>
            {r.roundsElapsed}
            {r.maxRounds === undefined ? '' : ` of ${r.maxRounds}`}
          </dd>
          <dt>cost</dt>
          <dd>{money(r.costUsd)}</dd>
          <dt>cwd</dt>
          <dd>
            <code>{r.cwd}</code>
          </dd>
          <dt>id</dt>
          <dd>
            <code>{r.sessionId}</code> · {r.runs.length} run{r.runs.length === 1 ? '' : 's'}
          </dd>
          {r.outcome ? (
            <>
              <dt>verdict</dt>
              <dd>
                {r.outcome}
                {r.note ? ` · ${r.note}` : ''}
              </dd>
            </>
          ) : null}
          {r.provision ? <CapabilityFacts meta={r.provision} /> : null}
        </dl>
        <AttachRow detail={d} />
        <ErrorLine error={action} />
      </Section>
      {latestChecklist(events) === undefined ? null : (
        <Section title="Checklist">
          <Checklist events={events} />
        </Section>
      )}
      <Section title={`Feed${feedState === 'open' ? '' : ` (${feedState})`}`}>
        <Feed items={foldFeed(events)} times={timesOf(events)} live={d.live} sessionId={id} onError={setAction} />
        {d.live ? <GuidanceBox sessionId={id} onError={setAction} /> : null}
      </Section>
    </div>
  );
}

function AttachRow({ detail }: { detail: SessionDetail }) {
  const [copied, setCopied] = useState(false);
  const attach = detail.externalAttach;
  if (attach === undefined)
    return <p class="dim attach-none">Terminal attach: {detail.externalAttachUnavailable ?? 'not available'}</p>;
  const copy = () => {
    void navigator.clipboard
      ?.writeText(attach.command)
      .then(() => setCopied(true))
      .catch(() => setCopied(false));
  };
  const stillDriven = ['running', 'idle'].includes(detail.record.status);
  return (
    <div class="attach" data-testid="attach">
      <div class="attach-row">
        <code data-testid="attach-command">{attach.command}</code>
        <button onClick={copy}>{copied ? 'Copied' : 'Copy'}</button>
      </div>
      {attach.note ? <div class="dim">{attach.note}</div> : null}
      {stillDriven ? (
        <div class="caution" role="note">
          Caution: neo is still driving this session. Attaching from a terminal now means two drivers on one session —
          resume from the terminal only after the session ends.
        </div>
      ) : null}
    </div>
  );
}

function Feed({
  items: all,
  times,
  live,
  sessionId,
  onError,
}: {
  items: FeedItem[];
  times: Map<number, string>;
  live: boolean;
  sessionId: string;
  onError: (e: unknown) => void;
}) {
  const [openDiff, setOpenDiff] = useState<number | undefined>(undefined);
  const [filter, setFilter] = useState('');
  if (all.length === 0) return <p class="dim">No events yet.</p>;
  const needle = filter.trim().toLowerCase();
  const items = needle === '' ? all : all.filter((item) => JSON.stringify(item).toLowerCase().includes(needle));
  return (
    <>
      <input
        class="feed-filter"
        data-testid="feed-filter"
        placeholder="filter the feed (text, tool, path…)"
        value={filter}
        onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
      />
      {needle === '' ? null : (
        <span class="dim">
          {' '}
          {items.length} of {all.length}
        </span>
      )}
      <ol class="feed" data-testid="feed">
        {items.map((item) => {
          switch (item.kind) {
            case 'text':
              return (
                <li key={item.seq} class={item.reasoning ? 'f-reasoning' : 'f-text'}>
                  <Stamp at={times.get(item.seq)} />
                  <LongText text={item.text} />
                </li>
              );
            case 'tool':
              return (
                <li key={item.seq} class={`f-tool${item.isError ? ' is-error' : ''}`} data-testid="tool-card">
                  <Stamp at={times.get(item.seq)} />
                  <details>
                    <summary>
                      <span class="tool-name">{item.name}</span> <code class="tool-brief">{brief(item.input)}</code>
                      {item.output === undefined ? (
                        <span class="dim"> · running…</span>
                      ) : item.isError ? (
                        <span class="bad"> · error</span>
                      ) : null}
                      {item.durationMs === undefined ? null : <span class="dim"> · {duration(item.durationMs)}</span>}
                    </summary>
                    <div class="tool-io">
                      <div class="label">input</div>
                      <LongText text={JSON.stringify(item.input, null, 2)} pre />
                      {item.output === undefined ? null : (
                        <>
                          <div class="label">output</div>
                          <LongText text={item.output} pre />
                        </>
                      )}
                    </div>
                  </details>
                </li>
              );
            case 'clarify':
              return (
                <li key={item.seq} class="f-clarify" data-testid="clarification">
                  <Stamp at={times.get(item.seq)} />
                  <div>
                    <strong>Permission asked:</strong> {item.toolName} <code>{brief(item.input)}</code>
                  </div>
                  {item.decision !== undefined ? (
                    <div class={item.decision.allow ? 'ok' : 'bad'}>
                      {item.decision.allow ? 'allowed' : 'denied'}
                      {item.decision.reason ? ` · ${item.decision.reason}` : ''}
                    </div>
                  ) : live ? (
                    <Answer sessionId={sessionId} clarificationId={item.clarificationId} onError={onError} />
                  ) : (
                    <div class="dim">unanswered</div>
                  )}
                </li>
              );
            case 'guidance':
              return (
                <li key={item.seq} class={`f-guidance src-${item.source}`}>
                  <Stamp at={times.get(item.seq)} />
                  <span class="label">{item.source === 'user' ? 'you' : item.source}</span>{' '}
                  <LongText text={item.text} />
                </li>
              );
            case 'turn':
              return (
                <li key={item.seq} class="f-turn">
                  <Stamp at={times.get(item.seq)} />
                  turn {item.numTurns ?? ''} complete{item.interrupted ? ' (interrupted)' : ''}
                  {item.costUsd === undefined ? '' : ` · ${money(item.costUsd)}`}
                </li>
              );
            case 'diff':
              return (
                <li key={item.seq} class="f-diff">
                  <Stamp at={times.get(item.seq)} />
                  <button
                    class="link"
                    data-testid="open-diff"
                    onClick={() => setOpenDiff(openDiff === item.seq ? undefined : item.seq)}
                  >
                    round {item.round} diff: {item.diff.summaryLine ?? `${item.diff.files.length} files`}
                  </button>
                  {openDiff === item.seq ? <DiffView diff={item.diff} /> : null}
                </li>
              );
            case 'note':
              return (
                <li key={item.seq} class={`f-note tone-${item.tone}`}>
                  <Stamp at={times.get(item.seq)} />
                  <LongText text={item.text} />
                </li>
              );
          }
        })}
      </ol>
    </>
  );
}

/** When a feed item happened: the time of day, the full timestamp on hover. */
function Stamp({ at }: { at: string | undefined }) {
  if (at === undefined) return null;
  return (
    <time class="f-at" dateTime={at} title={at}>
      {new Date(at).toLocaleTimeString([], { hour12: false })}
    </time>
  );
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`;
}

function Answer({
  sessionId,
  clarificationId,
  onError,
}: {
  sessionId: string;
  clarificationId: string;
  onError: (e: unknown) => void;
}) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const send = (allow: boolean) => {
    setBusy(true);
    api(`/api/code-sessions/${sessionId}/answer`, {
      clarificationId,
      allow,
      ...(reason.trim() === '' ? {} : { reason }),
    }).then(
      () => setBusy(false),
      (e: unknown) => {
        setBusy(false);
        onError(e);
      },
    );
  };
  return (
    <div class="answer">
      <input
        placeholder="reason (optional)"
        value={reason}
        onInput={(e) => setReason((e.target as HTMLInputElement).value)}
      />
      <button class="ok" disabled={busy} onClick={() => send(true)}>
        Allow
      </button>
      <button class="bad" disabled={busy} onClick={() => send(false)}>
        Deny
      </button>
    </div>
  );
}

function GuidanceBox({ sessionId, onError }: { sessionId: string; onError: (e: unknown) => void }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const send = (event: Event) => {
    event.preventDefault();
    if (text.trim() === '') return;
    setBusy(true);
    api(`/api/code-sessions/${sessionId}/guidance`, { text }).then(
      () => {
        setBusy(false);
        setText('');
      },
      (e: unknown) => {
        setBusy(false);
        onError(e);
      },
    );
  };
  return (
    <form class="guidance" onSubmit={send}>
      <textarea
        placeholder="Guidance for the agent's next turn (the driver sees it too)"
        value={text}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        data-testid="guidance-text"
      />
      <button class="primary" type="submit" disabled={busy || text.trim() === ''} data-testid="guidance-send">
        Send guidance
      </button>
    </form>
  );
}

function brief(input: unknown): string {
  if (input === null || typeof input !== 'object') return String(input ?? '');
  const o = input as Record<string, unknown>;
  const pick = o.command ?? o.path ?? o.file_path ?? o.url ?? o.pattern;
  const text = Array.isArray(pick) ? pick.join(' ') : typeof pick === 'string' ? pick : JSON.stringify(input);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
