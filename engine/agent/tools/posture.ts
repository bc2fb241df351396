/**
 * Postures for neo's own tools — the same gate as every CLI backend (engine/posture decideAsk):
 * plan runs only reads; default asks before every write and command; acceptEdits lets file
 * changes inside the working directory through and asks before commands; full asks nothing.
 * Below full a write outside the working directory or into `.git` is denied, not asked. An ask
 * is answered by whoever drives the session (a person, a driver persona), and the answer is
 * pinned so compaction never forgets it; what the gate decides itself is reported for the record.
 */
import { resolvePaths } from '../../execution/index.js';
import {
  curatedMcpAsk,
  decideAsk,
  type AskKind,
  type CuratedMcp,
  type Posture,
  type ToolAsk,
} from '../../posture/index.js';
import type { ApprovalDecision, ToolApprover, ToolEffect } from '../tool.js';

/** Asks the session's driver about one call; resolves with the answer. */
export type AskPermission = (request: {
  ask: ToolAsk;
  input: Record<string, unknown>;
  signal: AbortSignal;
}) => Promise<{ allow: boolean; reason?: string }>;

/** What the gate decided by itself about one call (its tool_use id), for the session's record. */
export type GateReport = (report: {
  callId: string;
  ask: ToolAsk;
  allow: boolean;
  reason: string;
  posture: Posture;
}) => void;

const KIND: Readonly<Record<ToolEffect, AskKind>> = { read: 'read', write: 'edit', exec: 'execute' };

/** The normalized ask of one of neo's tool calls. */
export function toolAsk(name: string, effect: ToolEffect, input: Record<string, unknown>): ToolAsk {
  const ask: ToolAsk = {
    kind: KIND[effect],
    toolName: name,
    paths: typeof input.path === 'string' ? [input.path] : [],
  };
  if (typeof input.command === 'string') ask.command = input.command;
  return ask;
}

/**
 * An approver that applies the current posture and asks when it says so. Reads pass without a
 * question: the tools themselves keep every path inside `cwd` (an MCP tool is a read only when
 * its server's configuration declares it so). A tool of a provisioned server is marked as such
 * for the driver (curatedMcpAsk).
 */
export function postureApprover(
  currentPosture: () => Posture,
  ask: AskPermission,
  options: { cwd: string; report?: GateReport; curatedMcp?: CuratedMcp },
): ToolApprover {
  return async ({ tool, call, input, signal }): Promise<ApprovalDecision> => {
    if (tool.effect === 'read') return { allow: true };
    const posture = currentPosture();
    const request = curatedMcpAsk(toolAsk(tool.spec.name, tool.effect, input), options.curatedMcp);
    const { root, resolved } = await resolvePaths(options.cwd, request.paths);
    const decision = decideAsk(posture, request, { root, resolved });
    if (decision.kind !== 'ask') {
      const allow = decision.kind === 'allow';
      options.report?.({ callId: call.id, ask: request, allow, reason: decision.reason, posture });
      return allow ? { allow: true } : { allow: false, message: `denied: ${decision.reason}` };
    }
    const answer = await ask({ ask: request, input, signal });
    const summary = `${tool.spec.name} ${briefInput(input)}`;
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
