/**
 * The built-in driver's answer to a permission ask, used until a driving persona decides
 * instead: the posture module's default rules (edits and reads inside the workspace) plus one
 * allow rule per `allowCommands` entry, matched on argv (engine/posture). Posture full allows
 * everything; plan allows only reads. Every answer carries a reason the agent can act on.
 */
import {
  POSTURE_GATE,
  commandOfAsk,
  isCommandTool,
  matchClarifyRules,
  rulesAllowingCommands,
  type Posture,
  type ToolAsk,
} from '../../posture/index.js';

/** What the built-in rules need to know to answer an ask. */
export interface BuiltinRules {
  /** The session's ceiling: what the posture would allow. */
  posture: Posture;
  /** The folder the session is confined to (absolute, POSIX); edits must stay inside it. */
  workspace: string;
  /** Command rules the agent may run (see docs/flows.md, Command rules). */
  allowCommands: readonly string[];
}

export interface AskAnswer {
  allow: boolean;
  reason: string;
}

export function builtinAnswer(ask: ToolAsk, rules: BuiltinRules): AskAnswer {
  if (rules.posture === 'full') return { allow: true, reason: 'posture full allows every tool' };
  if (POSTURE_GATE[rules.posture][ask.kind] === 'deny')
    return {
      allow: false,
      reason: 'this step runs in posture plan: it may read and plan, never edit files or run commands',
    };
  const verdict = matchClarifyRules(ask, rulesAllowingCommands(rules.allowCommands), rules.workspace);
  const command = commandOfAsk(ask);
  if (verdict.decision === 'allow')
    return {
      allow: true,
      reason:
        ask.kind === 'execute' && command !== undefined
          ? `\`${command.text}\` is in the step's allowed commands`
          : `${ask.kind === 'edit' ? 'edit' : 'read'} inside the workspace (${ask.paths.join(', ')})`,
    };
  if (ask.kind !== 'execute') return { allow: false, reason: verdict.reason };
  const listed =
    rules.allowCommands.length > 0
      ? `allowed: ${rules.allowCommands.map((c) => `\`${c}\``).join(', ')}`
      : 'no commands are allowed in this step';
  if (ask.command === undefined && ask.argv === undefined)
    return isCommandTool(ask.toolName)
      ? { allow: false, reason: `neo cannot read the command ${ask.toolName} would run (${listed})` }
      : {
          allow: false,
          reason: `${ask.toolName} is not allowed by neo's default rules: only file edits inside the workspace and the step's allowed commands are`,
        };
  const plain = command !== undefined && command.hazard === undefined && command.tokens.every((t) => 'word' in t);
  return {
    allow: false,
    reason: plain
      ? `\`${command.text}\` is not an allowed command (${listed}); add it to the step's allowCommands if it is needed`
      : `${verdict.reason} (${listed})`,
  };
}
