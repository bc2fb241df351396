/** What a persona run reports while it drives, for the live display, a flow step's progress and logs. */
import type { ScopeConstraints, SessionLiveEvent, ReadTurnKind } from '../session/index.js';
import type { Answer, CheckResult, Judgement, SessionInfo, StartPlan, StartRejection, Verdict } from './decisions.js';

export type PersonaObservation =
  | { type: 'constraints'; scope: string; constraints: ScopeConstraints; provenance: Record<string, string> }
  | { type: 'notice'; level: 'info' | 'warning'; message: string }
  | { type: 'selected'; plan: StartPlan }
  | { type: 'rejected'; rejection: StartRejection }
  | { type: 'started'; session: SessionInfo }
  | { type: 'turn'; kind: ReadTurnKind; round: number; summary?: string }
  | { type: 'answered'; toolName: string; answer: Answer }
  | { type: 'checked'; check: CheckResult }
  | { type: 'judged'; judgement: Judgement }
  | { type: 'waiting'; key: string; runId: string; prompt: string; command: string }
  /** A raw event of a session this persona opened (tool calls, costs, the model). */
  | { type: 'agent'; live: SessionLiveEvent }
  | { type: 'settled'; verdict: Verdict };

export type PersonaObserver = (observation: PersonaObservation) => void;
