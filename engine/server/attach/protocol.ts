/**
 * The attach socket's wire format: newline-delimited JSON over a unix socket in NEO_HOME. A flow
 * or persona process that finds `neo serve` running attaches and streams what happens in it up
 * (session events, flow observations, metrics); the server sends a person's commands down
 * (guidance, answers, interrupts, a run's cancel) and gets each one's result back.
 */
import type { RunEvent } from '../../flow/index.js';
import type { MetricLabels } from '../../observability/index.js';
import type { SessionLiveEvent, WireError } from '../../session/index.js';
import type { PersonCommand } from '../person-ops.js';

/** What a process reports about a flow run it drives (a trimmed FlowObservation). */
export type FlowReport =
  | { type: 'run'; runId: string; resumed: boolean }
  | { type: 'event'; runId: string; event: RunEvent }
  | {
      type: 'progress';
      runId: string;
      progress: {
        step: string;
        item?: number;
        round?: number;
        tool?: string;
        costUsd?: number;
        note?: string;
        sessionId?: string;
      };
    }
  | { type: 'settled'; runId: string };

export type AttachCommand = PersonCommand | { type: 'cancel'; runId: string };

/** Process → server. */
export type UpMessage =
  | { kind: 'hello'; pid: number; label: string }
  /** After a reattach: the sessions the process holds and the runs it drives. */
  | { kind: 'holds'; sessions: string[]; runs: Array<{ runId: string; resumed: boolean }> }
  | { kind: 'session'; live: SessionLiveEvent }
  | { kind: 'flow'; report: FlowReport }
  | { kind: 'metric'; op: 'increment' | 'observe'; name: string; labels?: MetricLabels; value?: number }
  | { kind: 'reply'; id: number; ok: true; result: unknown }
  | { kind: 'reply'; id: number; ok: false; error: WireError };

/** Server → process. */
export type DownMessage = { kind: 'command'; id: number; command: AttachCommand };
