/**
 * Postures for neo's own tools — the same contract as every CLI backend: plan runs only reads
 * (writes and commands are refused without asking); default asks before every write and command;
 * acceptEdits lets file changes through and asks before commands; full asks nothing. An ask is
 * answered by whoever drives the session (a person, a driver persona), and the answer is pinned
 * so compaction never forgets it.
 */
import type { Posture } from '../../definitions/index.js';
import type { ApprovalDecision, ToolApprover, ToolEffect } from '../tool.js';

export type PostureDecision = 'allow' | 'ask' | 'deny';

export function postureDecision(posture: Posture, effect: ToolEffect): PostureDecision {
  if (effect === 'read') return 'allow';
  switch (posture) {
    case 'plan':
      return 'deny';
    case 'default':
      return 'ask';
    case 'acceptEdits':
      return effect === 'write' ? 'allow' : 'ask';
    case 'full':
      return 'allow';
  }
}

/** Asks the session's driver about one call; resolves with the answer. */
export type AskPermission = (request: {
  toolName: string;
  input: Record<string, unknown>;
  signal: AbortSignal;
}) => Promise<{ allow: boolean; reason?: string }>;

/** An approver that applies the current posture and asks when it says so. */
export function postureApprover(currentPosture: () => Posture, ask: AskPermission): ToolApprover {
  return async ({ tool, input, signal }): Promise<ApprovalDecision> => {
    const posture = currentPosture();
    const decision = postureDecision(posture, tool.effect);
    const name = tool.spec.name;
    if (decision === 'allow') return { allow: true };
    if (decision === 'deny') {
      return {
        allow: false,
        message: `denied: posture ${posture} allows ${tool.effect === 'write' ? 'no file changes' : 'no commands'} (${name})`,
      };
    }
    const answer = await ask({ toolName: name, input, signal });
    const summary = `${name} ${briefInput(input)}`;
    if (answer.allow)
      return {
        allow: true,
        pinned: `Permission asked for ${summary}: allowed${answer.reason ? ` (${answer.reason})` : ''}.`,
      };
    const why = answer.reason ? `: ${answer.reason}` : '';
    return {
      allow: false,
      message: `denied by the user${why}`,
      pinned: `Permission asked for ${summary}: denied${why}.`,
    };
  };
}

function briefInput(input: Record<string, unknown>): string {
  const text = JSON.stringify(input);
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
