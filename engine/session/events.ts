/**
 * What one line of events.jsonl carries: a normalized agent event, or one of the registry's own
 * annotations (seed 004 §4). The registry assigns `seq`; the store only writes it.
 */
import type { Effort, Posture } from '../definitions/index.js';
import type { ToolAsk } from '../posture/index.js';
import type { AgentEvent } from '../transports/index.js';
import type { StopOutcome, TurnDiff } from './contract.js';
import type { ReleaseReason } from './machine.js';

/** Events the registry adds around the agent's own. */
export type SessionAnnotation =
  | {
      type: 'created';
      backend: string;
      posture: Posture;
      maxPosture: Posture;
      maxRounds: number;
      model?: string;
      effort?: Effort;
    }
  | {
      type: 'adopted';
      backend: string;
      posture: Posture;
      maxPosture: Posture;
      maxRounds: number;
      roundsElapsed: number;
      resumeSessionId?: string;
    }
  /** Guidance for the agent: from the driver, from a person (pinned), or a deny reason carried forward. */
  | { type: 'guidance'; source: 'driver' | 'user' | 'deny'; text: string; model?: string; effort?: Effort }
  | { type: 'posture'; mode: Posture }
  /**
   * A permission ask answered, whoever answered it: `by` is `posture` when the posture gate
   * decided on its own (an automatic allow or deny), `interrupt` when neo's interrupt cancelled
   * it, `cli` when the CLI withdrew it, else the driver's scope that sent the answer op. Every
   * approval an agent got is one of these.
   */
  | {
      type: 'clarification';
      clarificationId: string;
      toolName: string;
      decision: { allow: boolean; reason?: string; note?: string };
      by?: string;
      /** The posture the gate decided under (gate answers only). */
      posture?: Posture;
      /** The normalized ask, when the transport read one. */
      ask?: ToolAsk;
    }
  | { type: 'turn_diff'; round: number; diff: TurnDiff }
  | { type: 'interrupt' }
  /** The undo op reverted the agent's last turn of writes. */
  | { type: 'undo'; turn: number; restored: string[] }
  /** The reset op cleared the agent's conversation. */
  | { type: 'reset' }
  | { type: 'stalled'; idleMs: number }
  | { type: 'max_rounds'; rounds: number }
  /** Always the last event of a session. */
  | { type: 'released'; reason: ReleaseReason; outcome?: StopOutcome; note?: string };

export type SessionEventPayload = AgentEvent | SessionAnnotation;

/** One line of events.jsonl. */
export interface PersistedSessionEvent {
  seq: number;
  at: string;
  event: SessionEventPayload;
}

/** What onSessionEvent listeners receive: the persisted line plus the session id. */
export interface SessionLiveEvent extends PersistedSessionEvent {
  sessionId: string;
  /** The scope that owns the session (live only: not in events.jsonl; neo serve's feed carries it): a listener can keep to its own. */
  ownerScope?: string;
}
