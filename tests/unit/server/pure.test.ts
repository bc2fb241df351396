import { describe, expect, it, vi } from 'vitest';
import { coalesceHistory, TextCoalescer, type FeedEvent } from '../../../engine/server/coalesce.js';
import { renderExternalAttach } from '../../../engine/server/external-attach.js';
import { EventHub } from '../../../engine/server/hub.js';
import { checkedId, isIdOf } from '../../../engine/server/ids.js';
import { allowedHosts, isLoopback } from '../../../engine/server/hosts.js';
import { tokenMatches } from '../../../engine/server/token.js';
import type { SessionLiveEvent } from '../../../engine/session/index.js';
import { defined } from '../../../engine/util/defined.js';

const live = (seq: number, event: SessionLiveEvent['event'], sessionId = 'cs_a'): SessionLiveEvent => ({
  sessionId,
  seq,
  at: `t${seq}`,
  event,
});

describe('text coalescing', () => {
  it('merges consecutive text of a history into one event covering its seq range', () => {
    const feed = coalesceHistory('cs_a', [
      { seq: 1, at: 't1', event: { type: 'text', text: 'a' } },
      { seq: 2, at: 't2', event: { type: 'text', text: 'b' } },
      { seq: 3, at: 't3', event: { type: 'tool_use', id: 'x', name: 'write', input: {} } },
      { seq: 4, at: 't4', event: { type: 'text', text: 'c' } },
    ]);
    expect(feed).toEqual([
      { sessionId: 'cs_a', seq: 2, firstSeq: 1, at: 't2', event: { type: 'text', text: 'a\n\nb' } },
      { sessionId: 'cs_a', seq: 3, at: 't3', event: { type: 'tool_use', id: 'x', name: 'write', input: {} } },
      { sessionId: 'cs_a', seq: 4, at: 't4', event: { type: 'text', text: 'c' } },
    ]);
  });

  it('holds live text for its window per session; another kind flushes it first, keeping seq order', () => {
    vi.useFakeTimers();
    try {
      const out: FeedEvent[] = [];
      const coalescer = new TextCoalescer(250, (e) => out.push(e));
      coalescer.push(live(1, { type: 'text', text: 'a' }));
      coalescer.push(live(1, { type: 'text', text: 'x' }, 'cs_b'));
      coalescer.push(live(2, { type: 'text', text: 'b' }));
      expect(out).toEqual([]);
      coalescer.push(live(3, { type: 'turn_complete' }));
      expect(out.map((e) => [e.sessionId, e.firstSeq, e.seq, e.event.type])).toEqual([
        ['cs_a', 1, 2, 'text'],
        ['cs_a', undefined, 3, 'turn_complete'],
      ]);
      vi.advanceTimersByTime(250);
      expect(out.at(-1)).toMatchObject({ sessionId: 'cs_b', seq: 1, event: { text: 'x' } });
      coalescer.push(live(4, { type: 'text', text: 'c' }));
      coalescer.close();
      expect(out.at(-1)).toMatchObject({ seq: 4, event: { text: 'c' } });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the event hub', () => {
  it('replays what followed an id, and cannot for an id of another start or older than its ring', () => {
    const hub = new EventHub({ capacity: 3 });
    const ids = [1, 2, 3, 4, 5].map((n) => hub.publish('flow_run_event', { n }).id);
    expect(hub.since(ids[2]!)!.map((e) => e.id)).toEqual([ids[3], ids[4]]);
    expect(hub.since(ids[4]!)).toEqual([]);
    expect(hub.since(ids[1]!)).toEqual(hub.since(ids[1]!)); // the oldest kept is 3: after 2 is still whole
    expect(hub.since(ids[1]!)!.map((e) => e.id)).toEqual([ids[2], ids[3], ids[4]]);
    expect(hub.since(ids[0]!)).toBeUndefined();
    expect(hub.since('abcdef-1')).toBeUndefined();
    expect(hub.since(`${hub.epoch}-99`)).toBeUndefined();
    expect(hub.since('garbage')).toBeUndefined();
  });

  it('isolates a throwing subscriber', () => {
    const hub = new EventHub();
    const got: unknown[] = [];
    hub.subscribe(() => {
      throw new Error('boom');
    });
    hub.subscribe((e) => got.push(e.data));
    hub.publish('approval_requested', 1);
    expect(got).toEqual([1]);
  });
});

describe('terminal attach', () => {
  const record = (cwd: string, ids: Array<string | undefined>) => ({
    cwd,
    runs: ids.map((id) => ({
      startedAt: 't',
      ownerScopeId: 's',
      ...defined({ externalSessionId: id }),
    })),
  });

  it('fills the template with the latest recorded backend session id, each word quoted for a shell', () => {
    expect(
      renderExternalAttach({ commandTemplate: 'claude --resume {sessionId}', note: 'n' }, record('/r', ['a', 'b'])),
    ).toEqual({
      available: true,
      command: 'claude --resume b',
      note: 'n',
    });
    expect(
      renderExternalAttach(
        { commandTemplate: 'opencode "{cwd}" --session {sessionId}' },
        record("/tmp/it's a dir; rm -rf ~", ['s1', undefined]),
      ),
    ).toEqual({ available: true, command: `opencode "/tmp/it's a dir; rm -rf ~" --session s1` });
    expect(
      renderExternalAttach({ commandTemplate: 'codex resume {sessionId}' }, record('/r', ['$(touch /tmp/x)'])),
    ).toEqual({ available: true, command: "codex resume '$(touch /tmp/x)'" });
  });

  it('is absent without a descriptor, without a recorded id, and when the command needs a cwd never recorded', () => {
    expect(renderExternalAttach(undefined, record('/r', ['a']))).toMatchObject({ available: false });
    expect(renderExternalAttach({ commandTemplate: 'claude --resume {sessionId}' }, record('/r', [undefined]))).toEqual(
      {
        available: false,
        reason: 'no run recorded the backend session id',
      },
    );
    expect(
      renderExternalAttach({ commandTemplate: 'opencode "{cwd}" --session {sessionId}' }, record('', ['a'])),
    ).toEqual({
      available: false,
      reason: 'the command needs the working directory, which was never recorded for this session',
    });
    // A template that does not need the cwd renders without one.
    expect(renderExternalAttach({ commandTemplate: 'claude --resume {sessionId}' }, record('', ['a']))).toMatchObject({
      available: true,
    });
  });
});

describe('ids, hosts and the token', () => {
  it('accepts exactly the shapes of ids', () => {
    expect(isIdOf('session', `cs_${'a'.repeat(43)}`)).toBe(true);
    expect(isIdOf('session', `cs_${'a'.repeat(42)}`)).toBe(false);
    expect(isIdOf('run', '20260130-142501-3fa9c2')).toBe(true);
    expect(isIdOf('run', '20260130-142501-3fa9c2.review.1-2')).toBe(true);
    for (const bad of [
      '..',
      '../x',
      '20260130-142501-3fa9c2/..',
      '20260130-142501-3fa9c2.a/b.1-1',
      '20260130-142501-3FA9C2',
    ])
      expect({ bad, ok: isIdOf('run', bad) }).toEqual({ bad, ok: false });
    expect(isIdOf('run', 'persona-code-specialist-lq2x')).toBe(true);
    expect(isIdOf('run', 'persona-../../x')).toBe(false);
    for (const good of ['ship', 'ship[2]', 'fix[0]-q1', 'fix-q2']) expect(isIdOf('approval', good)).toBe(true);
    for (const bad of ['..', '.hidden', 'a/b', 'a\\b', 'a\0b', '']) expect(isIdOf('approval', bad)).toBe(false);
    expect(() => checkedId('session', '../../x')).toThrow(/is not a session id/);
  });

  it('allows Host values of the server only', () => {
    const hosts = allowedHosts('127.0.0.1', 7400);
    expect([...hosts].sort()).toEqual(['127.0.0.1:7400', '[::1]:7400', 'localhost:7400']);
    expect(isLoopback('127.0.0.2')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    expect(isLoopback('192.168.1.2')).toBe(false);
  });

  it('compares tokens without leaking length', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches('ab', 'abc')).toBe(false);
    expect(tokenMatches(undefined, 'abc')).toBe(false);
  });
});
