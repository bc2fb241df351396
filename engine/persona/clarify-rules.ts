/**
 * A persona's clarification rules: first match wins; every matcher a rule gives (tool, path,
 * command) must match. The safety properties live here:
 * - a path is matched relative to the session's working directory; a path that leaves it has no
 *   relative form, so it matches no rule and falls to `otherwise`;
 * - an ALLOW rule's command prefix matches whole words of a SIMPLE command only — a compound
 *   line (`npm test && rm -rf x`, pipes, redirections, substitutions) is never allowed by a prefix;
 * - a DENY rule's command prefix matches any fragment of a line, as text, so chaining cannot
 *   smuggle a denied command past it.
 * Pure.
 */
import type { Persona } from '../definitions/index.js';
import { askCommand, askPaths, type AskCommand } from './ask-input.js';
import { commandFragments, splitCommand, startsWithWords } from './command-words.js';
import { globMatch, relativeInside } from './path-glob.js';

export type PersonaRules = NonNullable<Persona['rules']>;
export type ClarifyRule = NonNullable<PersonaRules['clarify']>[number];

/** A permission ask as read-turn reports it. */
export interface Ask {
  toolName: string;
  input: unknown;
}

/** What the rules say about one ask. */
export interface RuleVerdict {
  decision: 'allow' | 'deny' | 'ask';
  reason: string;
  /** Which rule decided (`clarify[3]`), or `otherwise`. */
  rule: string;
}

/** Decides one ask by the rules; `cwd` is the session's working directory (absolute). */
export function matchClarifyRules(ask: Ask, rules: PersonaRules, cwd: string): RuleVerdict {
  const facts = askFacts(ask, cwd);
  const list = rules.clarify ?? [];
  for (let i = 0; i < list.length; i++) {
    const rule = list[i]!;
    if (!ruleMatches(rule, ask, facts)) continue;
    return { decision: rule.decision, reason: rule.reason ?? defaultReason(rule, ask, facts), rule: `clarify[${i}]` };
  }
  const otherwise = rules.otherwise ?? 'deny';
  return { decision: otherwise, reason: otherwiseReason(ask, facts), rule: 'otherwise' };
}

interface AskFacts {
  command: AskCommand | undefined;
  /** Each named path relative to cwd, or undefined when it leaves cwd. */
  paths: Array<{ raw: string; relative: string | undefined }>;
}

function askFacts(ask: Ask, cwd: string): AskFacts {
  return {
    command: askCommand(ask.input),
    paths: askPaths(ask.input).map((raw) => ({ raw, relative: relativeInside(cwd, raw) })),
  };
}

function ruleMatches(rule: ClarifyRule, ask: Ask, facts: AskFacts): boolean {
  if (rule.tool !== undefined && !toolNames(rule.tool).includes(ask.toolName)) return false;
  if (rule.path !== undefined && !pathMatches(rule, facts)) return false;
  if (rule.command !== undefined && !commandMatches(rule, facts.command)) return false;
  return true;
}

/** Allow: every path inside cwd and matching. Deny/ask: any path (inside cwd) matching. */
function pathMatches(rule: ClarifyRule, facts: AskFacts): boolean {
  if (facts.paths.length === 0) return false;
  const glob = rule.path!;
  if (rule.decision === 'allow')
    return facts.paths.every((p) => p.relative !== undefined && globMatch(glob, p.relative));
  return facts.paths.some((p) => p.relative !== undefined && globMatch(glob, p.relative));
}

function commandMatches(rule: ClarifyRule, command: AskCommand | undefined): boolean {
  if (command === undefined) return false;
  const prefix = rule.command!;
  if ('argv' in command) {
    // An argv list runs without a shell: its words are exact; a shell wrapper is not a prefix match.
    return rule.decision === 'allow'
      ? startsWithWords(command.argv, prefix)
      : textPrefix(command.argv, prefix) ||
          command.argv.some((part) => commandFragments(part).some((f) => textPrefix(f, prefix)));
  }
  if (rule.decision === 'allow') {
    const read = splitCommand(command.line);
    return !read.compound && !read.unterminated && startsWithWords(read.words, prefix);
  }
  return commandFragments(command.line).some((fragment) => textPrefix(fragment, prefix));
}

function textPrefix(words: readonly string[], prefix: string): boolean {
  const wanted = splitCommand(prefix).words.join(' ');
  return wanted !== '' && words.join(' ').startsWith(wanted);
}

function toolNames(value: string | string[]): string[] {
  return (Array.isArray(value) ? value : value.split(',')).map((t) => t.trim()).filter((t) => t !== '');
}

function describeAsk(ask: Ask, facts: AskFacts): string {
  if (facts.command !== undefined)
    return `\`${'line' in facts.command ? facts.command.line : facts.command.argv.join(' ')}\``;
  if (facts.paths.length > 0) return `${ask.toolName} on ${facts.paths.map((p) => p.raw).join(', ')}`;
  return ask.toolName;
}

function defaultReason(rule: ClarifyRule, ask: Ask, facts: AskFacts): string {
  const what = describeAsk(ask, facts);
  return rule.decision === 'allow'
    ? `${what} is allowed by the persona's rules`
    : rule.decision === 'deny'
      ? `${what} is not allowed by the persona's rules`
      : `${what} needs a person's decision`;
}

function otherwiseReason(ask: Ask, facts: AskFacts): string {
  const outside = facts.paths.find((p) => p.relative === undefined);
  if (outside !== undefined) return `${outside.raw} is outside the working directory; change files inside it only`;
  if (facts.command !== undefined && 'line' in facts.command && splitCommand(facts.command.line).compound) {
    return `${describeAsk(ask, facts)} chains several commands; run each allowed command on its own`;
  }
  return `no rule of this persona allows ${describeAsk(ask, facts)}`;
}
