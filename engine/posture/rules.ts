/**
 * Clarification rules — a persona's `rules.clarify`, and the built-in rules a flow step is driven
 * by — decided on a normalized ToolAsk. First match wins; every matcher a rule gives (kind, tool,
 * path, command) must match. The safety properties live here:
 * - a path is matched relative to the session's folder; a path that leaves it has no relative
 *   form, so it matches no rule and falls to `otherwise`;
 * - an ALLOW rule's command matches the command's argv exactly (command-rule.ts): a chained,
 *   redirected or substituted command is never allowed by a rule that does not spell it out;
 * - a DENY rule's command meets any piece of a command line, so chaining cannot smuggle a denied
 *   command past it.
 * Pure.
 */
import type { ClarifyRule as SchemaClarifyRule, Persona } from '../generated/persona.js';
import type { ToolAsk } from './ask.js';
import { commandMatchesRule, commandOfAsk, commandTouchesRule } from './command-rule.js';
import { relativeInside } from './containment.js';
import { globMatch } from './path-glob.js';

export type ClarifyRules = NonNullable<Persona['rules']>;
export type ClarifyRule = SchemaClarifyRule;

/** What the rules say about one ask. */
export interface RuleVerdict {
  decision: 'allow' | 'deny' | 'ask';
  reason: string;
  /** Which rule decided (`clarify[3]`), or `otherwise`. */
  rule: string;
}

/** Decides one ask by the rules; `root` is the session's folder (absolute). */
export function matchClarifyRules(ask: ToolAsk, rules: ClarifyRules, root: string): RuleVerdict {
  const facts = askFacts(ask, root);
  const list = rules.clarify ?? [];
  for (let i = 0; i < list.length; i++) {
    const rule = list[i]!;
    if (!ruleMatches(rule, ask, facts)) continue;
    return { decision: rule.decision, reason: rule.reason ?? defaultReason(rule, facts), rule: `clarify[${i}]` };
  }
  return { decision: rules.otherwise ?? 'deny', reason: otherwiseReason(facts, root), rule: 'otherwise' };
}

/**
 * The rules a persona without its own `rules:` block is driven by (every non-driver persona run
 * as the driven agent's role, and a driver that writes none): edits and reads inside the folder
 * are allowed, everything else is refused with a reason the agent can act on.
 */
export const DEFAULT_RULES: ClarifyRules = {
  clarify: [
    { decision: 'allow', kind: 'edit', path: '**', reason: 'edits inside the workspace are allowed' },
    { decision: 'allow', kind: 'read', path: '**', reason: 'reads inside the workspace are allowed' },
  ],
  otherwise: 'deny',
};

/** A persona's rules, filled with the defaults for what it leaves out. */
export function rulesWithDefaults(rules: ClarifyRules | undefined): ClarifyRules {
  if (rules === undefined) return DEFAULT_RULES;
  return { ...rules, clarify: rules.clarify ?? DEFAULT_RULES.clarify!, otherwise: rules.otherwise ?? 'deny' };
}

/** The default rules plus one allow rule per command rule (a flow step's `allowCommands`). */
export function rulesAllowingCommands(commands: readonly string[]): ClarifyRules {
  return {
    clarify: [
      ...DEFAULT_RULES.clarify!,
      ...commands.map((command): ClarifyRule => ({ decision: 'allow', kind: 'execute', command })),
    ],
    otherwise: 'deny',
  };
}

interface AskFacts {
  ask: ToolAsk;
  command: ReturnType<typeof commandOfAsk>;
  /** Each named path relative to the root, or undefined when it leaves it. */
  paths: Array<{ raw: string; relative: string | undefined }>;
}

function askFacts(ask: ToolAsk, root: string): AskFacts {
  return {
    ask,
    command: commandOfAsk(ask),
    paths: ask.paths.map((raw) => ({ raw, relative: relativeInside(root, raw) })),
  };
}

function ruleMatches(rule: ClarifyRule, ask: ToolAsk, facts: AskFacts): boolean {
  if (rule.kind !== undefined && rule.kind !== ask.kind) return false;
  if (rule.tool !== undefined && !toolNames(rule.tool).includes(ask.toolName)) return false;
  if (rule.path !== undefined && !pathMatches(rule, facts)) return false;
  if (rule.command !== undefined && !commandMatches(rule, facts)) return false;
  return true;
}

/** Allow: every path inside the root and matching. Deny/ask: any path (inside the root) matching. */
function pathMatches(rule: ClarifyRule, facts: AskFacts): boolean {
  if (facts.paths.length === 0) return false;
  const glob = rule.path!;
  if (rule.decision === 'allow')
    return facts.paths.every((p) => p.relative !== undefined && globMatch(glob, p.relative));
  return facts.paths.some((p) => p.relative !== undefined && globMatch(glob, p.relative));
}

function commandMatches(rule: ClarifyRule, facts: AskFacts): boolean {
  if (facts.command === undefined) return false;
  return rule.decision === 'allow'
    ? commandMatchesRule(rule.command!, facts.command)
    : commandTouchesRule(rule.command!, facts.command);
}

function toolNames(value: string | string[]): string[] {
  return (Array.isArray(value) ? value : value.split(',')).map((t) => t.trim()).filter((t) => t !== '');
}

function describeAsk(facts: AskFacts): string {
  if (facts.command !== undefined) return `\`${facts.command.text}\``;
  if (facts.paths.length > 0) return `${facts.ask.toolName} on ${facts.paths.map((p) => p.raw).join(', ')}`;
  return facts.ask.toolName;
}

function defaultReason(rule: ClarifyRule, facts: AskFacts): string {
  const what = describeAsk(facts);
  return rule.decision === 'allow'
    ? `${what} is allowed by the persona's rules`
    : rule.decision === 'deny'
      ? `${what} is not allowed by the persona's rules`
      : `${what} needs a person's decision`;
}

function otherwiseReason(facts: AskFacts, root: string): string {
  const outside = facts.paths.find((p) => p.relative === undefined);
  if (outside !== undefined) return `${outside.raw} is outside the workspace ${root}; work on files inside it only`;
  if (facts.ask.kind === 'edit' && facts.paths.length === 0)
    return `neo cannot tell which files ${facts.ask.toolName} changes; edit files by path`;
  if (facts.command?.hazard !== undefined)
    return `${describeAsk(facts)} holds ${facts.command.hazard}; no command rule allows that — run each allowed command on its own, as plain words`;
  if (facts.command !== undefined && facts.command.tokens.some((t) => 'op' in t))
    return `${describeAsk(facts)} chains, pipes or redirects commands; run each allowed command on its own`;
  return `no rule allows ${describeAsk(facts)}`;
}
