/**
 * The session bridge (seed 004 §5): every live session event, from this process's registry or
 * from a process attached over the socket, goes onto two hub topics —
 * `code_session_event` (text coalesced per session on a 250 ms window, every other kind at once)
 * and `code_session_changed` (the record, re-read 250 ms after a status-affecting event so the
 * owner's meta.json write has landed).
 */
import type { CodeSessionRecord, SessionLiveEvent } from '../session/index.js';
import { TextCoalescer, type FeedEvent } from './coalesce.js';
import type { EventHub } from './hub.js';

export const TEXT_COALESCE_MS = 250;
export const CHANGED_DEBOUNCE_MS = 250;

/** Kinds after which a session's record (status, rounds, cost, posture) may have changed. */
export const STATUS_AFFECTING_KINDS: ReadonlySet<string> = new Set([
  'created',
  'adopted',
  'started',
  'turn_complete',
  'ended',
  'error',
  'guidance',
  'clarify',
  'clarification',
  'posture',
  'stalled',
  'max_rounds',
  'released',
]);

export interface SessionBridge {
  push(live: SessionLiveEvent): void;
  /** Every event as it came, before coalescing (a session's own feed coalesces for itself). */
  subscribeRaw(listener: (live: SessionLiveEvent) => void): () => void;
  /** Flushes waiting text and clears every timer. */
  close(): void;
}

export function createSessionBridge(options: {
  hub: EventHub;
  readRecord: (sessionId: string) => Promise<CodeSessionRecord | null>;
  textCoalesceMs?: number;
  changedDebounceMs?: number;
}): SessionBridge {
  const { hub } = options;
  const debounceMs = options.changedDebounceMs ?? CHANGED_DEBOUNCE_MS;
  const coalescer = new TextCoalescer(options.textCoalesceMs ?? TEXT_COALESCE_MS, (event: FeedEvent) =>
    hub.publish('code_session_event', event),
  );
  const changed = new Map<string, NodeJS.Timeout>();
  const raw = new Set<(live: SessionLiveEvent) => void>();
  let closed = false;

  const republish = (sessionId: string) => {
    changed.delete(sessionId);
    void options
      .readRecord(sessionId)
      .then((record) => {
        if (record !== null && !closed) hub.publish('code_session_changed', { record });
      })
      .catch(() => undefined);
  };

  return {
    push(live) {
      if (closed) return;
      for (const listener of raw) {
        try {
          listener(live);
        } catch {
          // A broken feed must not stop the others.
        }
      }
      coalescer.push(live);
      if (!STATUS_AFFECTING_KINDS.has(live.event.type)) return;
      clearTimeout(changed.get(live.sessionId));
      const timer = setTimeout(() => republish(live.sessionId), debounceMs);
      timer.unref();
      changed.set(live.sessionId, timer);
    },
    subscribeRaw(listener) {
      raw.add(listener);
      return () => raw.delete(listener);
    },
    close() {
      closed = true;
      raw.clear();
      coalescer.close();
      for (const timer of changed.values()) clearTimeout(timer);
      changed.clear();
    },
  };
}
