/**
 * A decision: what was tried on a repository and what came of it. neo writes the ones whose
 * verdict it saw itself (a gate run, a step's end, a person's answer, an escape check); an agent
 * may report one over MCP, and it is kept apart as `source: agent`, never as a verdict.
 */

/** What happened. */
export type DecisionKind =
  'gate-refused' | 'step-succeeded' | 'approval-rejected' | 'protected-edit' | 'escape' | 'agent-reported';

export const DECISION_KINDS: readonly DecisionKind[] = [
  'gate-refused',
  'step-succeeded',
  'approval-rejected',
  'protected-edit',
  'escape',
  'agent-reported',
];

/** A decision to record. */
export interface DecisionInput {
  kind: DecisionKind;
  /** `neo`: seen by neo itself; `agent`: an agent's own report (never a gate verdict). */
  source: 'neo' | 'agent';
  runId?: string;
  step?: string;
  /** The step's attempt (1-based). */
  attempt?: number;
  /**
   * What makes this record one moment of its run and step — when the attempt first started, the
   * attempt, the loop iteration, the kind and its index within the execution. A second record of
   * the same run, step and occurrence (a resumed execution meeting that moment again) is dropped.
   */
  occurrence?: string;
  persona?: string;
  backend?: string;
  model?: string;
  /** What the agent was asked to do. */
  brief?: string;
  /** accepted, refused, rejected… */
  verdict: string;
  /** What the verdict rests on: the check's last lines, the paths, the person's note. */
  evidence?: string;
  /** Why it was accepted or refused, in one sentence. */
  reason?: string;
  /** Repository-relative paths the change touched. */
  files?: readonly string[];
  /** The change's hunks (capped). */
  diff?: string;
  /** Symbols the change is about. */
  symbols?: readonly string[];
  /** When (default: now). */
  at?: string;
}

/** A stored decision. */
export interface Decision extends Omit<DecisionInput, 'files' | 'symbols'> {
  id: number;
  at: string;
  files: string[];
  symbols: string[];
}

/** Caps on what one decision keeps (bytes of UTF-16 text, roughly): a record, not an archive. */
export const DECISION_CAPS = { brief: 2048, evidence: 4096, reason: 1024, diff: 16 * 1024, files: 200 } as const;

/** `text` cut to `max` characters, marked when cut (the end of a diff matters less than its start). */
export function capText(text: string | undefined, max: number): string {
  if (text === undefined) return '';
  return text.length <= max ? text : `${text.slice(0, max)}\n…[cut: ${text.length} characters in all]`;
}

/** `text` cut to its last `max` characters (a check's output says why at its end). */
export function capTail(text: string | undefined, max: number): string {
  if (text === undefined) return '';
  return text.length <= max ? text : `…${text.slice(-max)}`;
}
