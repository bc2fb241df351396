/**
 * The posture gate: how neo answers a permission ask under a posture, before any driver sees it.
 * Every backend's asks come here as a ToolAsk (the CLI adapters, the script backend, neo's own
 * tools), so "the ceiling is enforced twice" — by the CLI's own mode and by these answers — holds
 * the same way everywhere. Pure: paths arrive already resolved.
 */
import type { AskKind, ToolAsk } from './ask.js';
import { outsideRoot, writeProblem, type ResolvedPath } from './containment.js';
import type { Posture } from './order.js';

/** What the gate does with one kind of ask under one posture. */
export type GateVerdict = 'allow' | 'ask' | 'deny';

/** The gate's answer: `ask` hands the question to whoever drives the session. */
export interface AskDecision {
  kind: GateVerdict;
  /** Why, in words the agent (deny) or the record (allow, ask) can use. */
  reason: string;
}

/**
 * The gate table. A read, an edit or a command is allowed, asked about or denied by posture;
 * the path rules below narrow it: below full, an edit must name its paths, and every one must
 * lie inside the workspace and outside `.git` (else it is denied, whatever the posture says);
 * a read of anything outside the workspace is asked about instead of allowed.
 */
export const POSTURE_GATE: Readonly<Record<Posture, Readonly<Record<AskKind, GateVerdict>>>> = {
  plan: { read: 'allow', edit: 'deny', execute: 'deny' },
  default: { read: 'allow', edit: 'ask', execute: 'ask' },
  acceptEdits: { read: 'allow', edit: 'allow', execute: 'ask' },
  full: { read: 'allow', edit: 'allow', execute: 'allow' },
};

/** What decideAsk needs besides the ask. */
export interface AskContext {
  /** The folder the session is confined to (its working directory), as a real absolute path. */
  root: string;
  /**
   * `ask.paths` in order with their real locations (engine/execution/paths.ts resolves them);
   * when absent, each path is judged lexically against `root`.
   */
  resolved?: readonly ResolvedPath[];
  /** The agent CLI's own configuration in the workspace (its descriptor's `projectConfig`): never edited below full. */
  agentConfig?: readonly string[];
}

/**
 * Decides one ask under `posture`: allow, deny (with the reason the agent sees) or ask the
 * driver. Posture full allows everything, paths unchecked (it is meant for sandboxes).
 */
export function decideAsk(posture: Posture, ask: ToolAsk, context: AskContext): AskDecision {
  const verdict = POSTURE_GATE[posture][ask.kind];
  if (posture === 'full') return { kind: verdict, reason: `posture full allows ${describe(ask)}` };
  if (ask.unreadable !== undefined)
    return { kind: 'deny', reason: `neo cannot read this permission ask, so it is denied: ${ask.unreadable}` };
  const paths = context.resolved ?? ask.paths.map((given) => ({ given }));
  if (verdict === 'deny')
    return {
      kind: 'deny',
      reason: `posture ${posture} forbids ${ask.kind === 'edit' ? 'file edits' : 'running commands'} (${describe(ask)})`,
    };
  switch (ask.kind) {
    case 'read': {
      const outside = outsideRoot(context.root, paths);
      if (outside === undefined)
        return {
          kind: verdict,
          reason: `posture ${posture} allows ${paths.length > 0 ? 'reads inside the workspace' : 'reads'} (${describe(ask)})`,
        };
      return { kind: 'ask', reason: `${outside.reason}; a read there needs the driver's decision` };
    }
    case 'edit': {
      if (paths.length === 0)
        return {
          kind: 'deny',
          reason: `neo cannot tell which files ${ask.toolName} changes, so it cannot check they are inside the workspace; edit files by path`,
        };
      const problem = writeProblem(context.root, paths, context.agentConfig);
      if (problem !== undefined)
        return { kind: 'deny', reason: `${problem.reason}; change files inside the workspace only` };
      return verdict === 'allow'
        ? { kind: 'allow', reason: `posture ${posture} allows edits inside the workspace (${names(paths)})` }
        : { kind: 'ask', reason: `posture ${posture} asks before every edit` };
    }
    case 'execute':
      return verdict === 'allow'
        ? { kind: 'allow', reason: `posture ${posture} allows ${describe(ask)}` }
        : { kind: 'ask', reason: `posture ${posture} asks before every command` };
  }
}

function describe(ask: ToolAsk): string {
  if (ask.command !== undefined) return `\`${ask.command}\``;
  if (ask.paths.length > 0) return `${ask.toolName} on ${ask.paths.join(', ')}`;
  return ask.toolName;
}

function names(paths: readonly ResolvedPath[]): string {
  return paths.map((p) => p.given).join(', ');
}
