/**
 * Command rules (a flow's `allowCommands`, a persona rule's `command:`) matched on argv, never on
 * text. What a rule means, exactly:
 *
 * - The command is split into words and operators as `/bin/sh` would split it. A command holding
 *   a substitution (`$(…)`, backticks, `$VAR`, `<(…)`), a newline, a comment or an unterminated
 *   quote matches no rule. One holding control operators or redirections (`;`, `&&`, `||`, `|`,
 *   `&`, `>`, `<`, `2>&1` …) matches only a rule that has the same operators in the same places.
 * - The rule is split the same way. Each rule word matches one command word: an unquoted `*`
 *   stands for any characters (none included) and `?` for one; anything else, and anything
 *   quoted, must be equal.
 * - The command has as many words as the rule, except that a last rule word ending in an
 *   unquoted `*` also takes any number of further words (plain words only: no operator), and a
 *   last word that is only `*` may take none.
 *
 * So `node --test *` matches `node --test` and `node --test test/a.test.js`, and refuses
 * `node --test; touch x`, `node --test && touch x`, `node --test $(touch x)` and
 * `node --test > out`. `npm test` matches `npm test` only.
 *
 * A DENY rule is read the other way, over-eagerly: it matches when its words start any run of
 * words of any piece of the command, the line cut at every operator and substitution, so
 * `sudo rm -rf x`, `npm test && rm -rf x` and `echo "$(rm -rf x)"` all meet a deny of `rm -r`.
 */
import type { ToolAsk } from './ask.js';
import { readCommandArgv, readCommandLine, type CommandLine, type CommandToken } from './command-line.js';

/** A rule split into tokens; a word token's `pattern` marks an unquoted `*` or `?`. */
type RuleTokens = CommandToken[];

const ruleCache = new Map<string, RuleTokens>();

function ruleTokens(rule: string): RuleTokens {
  let tokens = ruleCache.get(rule);
  if (tokens === undefined) {
    tokens = readCommandLine(rule.trim()).tokens;
    ruleCache.set(rule, tokens);
  }
  return tokens;
}

/** Why a rule text cannot be a command rule (it holds a substitution, a newline …), or undefined. */
export function commandRuleProblem(rule: string): string | undefined {
  if (rule.trim() === '') return 'the rule is empty';
  const read = readCommandLine(rule.trim());
  if (read.hazard !== undefined) return `the rule holds ${read.hazard}, which no command may use`;
  return undefined;
}

/** Whether an ALLOW rule matches `command` exactly as the module comment says. */
export function commandMatchesRule(rule: string, command: CommandLine): boolean {
  if (command.hazard !== undefined || commandRuleProblem(rule) !== undefined) return false;
  const want = ruleTokens(rule);
  const have = command.tokens;
  if (want.length === 0) return false;
  const last = want[want.length - 1]!;
  const tail = 'word' in last && last.pattern === true && last.word.endsWith('*');
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const h = have[i];
    if (h === undefined) return tail && i === want.length - 1 && 'word' in w && w.word === '*';
    if ('op' in w || 'op' in h) {
      if (!('op' in w && 'op' in h && w.op === h.op)) return false;
      continue;
    }
    // A file-name pattern in the command expands to words neo cannot see; only a trailing `*` covers it.
    if (h.pattern === true && !(tail && i === want.length - 1)) return false;
    if (!wordMatches(w, h.word)) return false;
  }
  if (have.length === want.length) return true;
  return tail && have.slice(want.length).every((t) => 'word' in t);
}

/** The first ALLOW rule of `rules` that matches `command`. */
export function firstMatchingRule(rules: readonly string[], command: CommandLine): string | undefined {
  return rules.find((rule) => commandMatchesRule(rule, command));
}

/** Whether a DENY rule meets any piece of `command` (see the module comment). */
export function commandTouchesRule(rule: string, command: CommandLine): boolean {
  const want = ruleTokens(rule).filter((t): t is { word: string; pattern?: boolean } => 'word' in t);
  if (want.length === 0) return false;
  const text = want.map((w) => w.word).join(' ');
  const pattern = new RegExp(`^${globSource(text)}`, 's');
  return fragments(command.text).some((words) => words.some((_, start) => pattern.test(words.slice(start).join(' '))));
}

function wordMatches(rule: { word: string; pattern?: boolean }, word: string): boolean {
  if (rule.pattern !== true) return rule.word === word;
  return new RegExp(`^${globSource(rule.word)}$`, 's').test(word);
}

/** A glob's regular-expression source: `*` any characters, `?` one, the rest literal. */
function globSource(glob: string): string {
  return glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
}

/**
 * Every piece of a line, cut at every operator and substitution character whether quoted or not,
 * each as words. Deliberately over-eager: it serves DENY rules only.
 */
function fragments(line: string): string[][] {
  return line
    .split(/\$\(|[;&|`<>()\n\r]/)
    .map((part) =>
      readCommandLine(part.replace(/["']/g, ' ')).tokens.flatMap((t) => ('word' in t && t.word !== '' ? [t.word] : [])),
    )
    .filter((words) => words.length > 0);
}

/** The command of an ask, read as the shell (or, for argv, the kernel) will see it. */
export function commandOfAsk(ask: ToolAsk): CommandLine | undefined {
  if (ask.argv !== undefined && ask.argv.length > 0) return readCommandArgv(ask.argv);
  if (ask.command !== undefined && ask.command.trim() !== '') return readCommandLine(ask.command);
  return undefined;
}
