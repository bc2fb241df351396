/**
 * The rules' answer to one permission ask, for every rules-driven session (a flow step's own
 * rules and a persona's `rules.clarify` alike): the posture's gate first (plan never edits or
 * runs), then the clarification rules, first match wins; posture full allows what no rule
 * decides, and so does a tool of an MCP server neo provisioned (curated-mcp.ts). A refused
 * command names the commands that are allowed, so the agent can act on it.
 * Pure.
 */
import type { ToolAsk } from './ask.js';
import { commandOfAsk } from './command-rule.js';
import { POSTURE_GATE } from './gate.js';
import type { Posture } from './order.js';
import { matchClarifyRules, type ClarifyRules, type RuleVerdict } from './rules.js';
import { isCommandTool } from './tool-names.js';

export interface AnswerRules {
  /** The session's ceiling: what the posture would allow. */
  posture: Posture;
  /** The folder the session is confined to (absolute, POSIX); paths are matched inside it. */
  workspace: string;
  rules: ClarifyRules;
  /** The command rules `rules` allow (a flow step's allowCommands), named when a command is refused. */
  allowCommands?: readonly string[];
}

export function answerAsk(ask: ToolAsk, o: AnswerRules): RuleVerdict {
  if (POSTURE_GATE[o.posture][ask.kind] === 'deny')
    return {
      decision: 'deny',
      reason: 'this session runs in posture plan: it may read and plan, never edit files or run commands',
      rule: 'posture',
    };
  const verdict = matchClarifyRules(ask, o.rules, o.workspace);
  if (verdict.rule !== 'otherwise') {
    const command = o.allowCommands === undefined || ask.kind !== 'execute' ? undefined : commandOfAsk(ask);
    return verdict.decision === 'allow' && command !== undefined
      ? { ...verdict, reason: `\`${command.text}\` is in the step's allowed commands` }
      : verdict;
  }
  if (o.posture === 'full') return { decision: 'allow', reason: 'posture full allows every tool', rule: 'posture' };
  // A provisioned server passed the catalog's trust gate: its tools need no rule of their own.
  if (ask.curatedMcp !== undefined)
    return {
      decision: 'allow',
      reason: `${ask.toolName} is a tool of the MCP server ${ask.curatedMcp}, which neo provisioned for this project`,
      rule: 'capability',
    };
  if (verdict.decision !== 'deny' || ask.kind !== 'execute' || o.allowCommands === undefined) return verdict;
  return { ...verdict, reason: refusedCommand(ask, verdict.reason, o.allowCommands) };
}

/** Why a command no rule allows is refused, with the allowed ones listed. */
function refusedCommand(ask: ToolAsk, reason: string, allowCommands: readonly string[]): string {
  const listed =
    allowCommands.length > 0
      ? `allowed: ${allowCommands.map((c) => `\`${c}\``).join(', ')}`
      : 'no commands are allowed in this step';
  if (ask.command === undefined && ask.argv === undefined)
    return isCommandTool(ask.toolName)
      ? `neo cannot read the command ${ask.toolName} would run (${listed})`
      : `${ask.toolName} is not allowed by neo's default rules: only file edits inside the workspace and the step's allowed commands are`;
  const command = commandOfAsk(ask);
  const plain = command !== undefined && command.hazard === undefined && command.tokens.every((t) => 'word' in t);
  return plain
    ? `\`${command.text}\` is not an allowed command (${listed}); add it to the step's allowCommands if it is needed`
    : `${reason} (${listed})`;
}
