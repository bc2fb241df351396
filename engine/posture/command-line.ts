/**
 * A command line read the way `/bin/sh -c` would split it, without running a shell: words and
 * operators from `shell-quote`, plus the hazards shell-quote reads differently from a shell
 * (it takes a newline for a space, does not know backticks, and accepts an unterminated quote).
 * Pure.
 */
import { parse, type ParseEntry } from 'shell-quote';

/** One token of a command: a word (argv entry) or a shell operator (`;`, `&&`, `|`, `>` …). */
export type CommandToken = { word: string; pattern?: boolean } | { op: string };

export interface CommandLine {
  /** The text as given (a line), or the argv joined for messages. */
  text: string;
  tokens: CommandToken[];
  /**
   * Why no rule may match it whatever the rule says: a substitution (`$(…)`, backticks, `$VAR`,
   * `<(…)`), a newline, a comment or an unterminated quote. Undefined for a readable line.
   */
  hazard?: string;
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', '/bin/sh', '/bin/bash', '/bin/dash', '/usr/bin/bash', '/bin/zsh']);

/** Reads a command given as one string, which a shell will run. */
export function readCommandLine(line: string): CommandLine {
  const hazard = scanHazard(line);
  const tokens: CommandToken[] = [];
  let substituted = false;
  let entries: ParseEntry[];
  try {
    entries = parse(line, () => {
      substituted = true;
      return '';
    });
  } catch (error) {
    // shell-quote throws on what it cannot read (`${`, a bad substitution): never a readable command.
    const why = error instanceof Error ? error.message : String(error);
    return { text: line, tokens: [], hazard: hazard ?? `something the shell parser cannot read (${why})` };
  }
  for (const entry of entries) {
    if (typeof entry === 'string') tokens.push({ word: entry });
    else if ('comment' in entry) return { text: line, tokens, hazard: hazard ?? 'a comment (#)' };
    else if (entry.op === 'glob') tokens.push({ word: (entry as { pattern: string }).pattern, pattern: true });
    else tokens.push({ op: entry.op });
  }
  const found = hazard ?? (substituted ? 'a substitution ($…)' : undefined) ?? substitutionOp(tokens);
  return found === undefined ? { text: line, tokens } : { text: line, tokens, hazard: found };
}

/**
 * Reads a command given as an argv list, which runs without a shell: its words are exact. A
 * shell wrapper (`bash -lc "<script>"`) is read as the script it runs.
 */
export function readCommandArgv(argv: readonly string[]): CommandLine {
  if (argv.length === 3 && SHELLS.has(argv[0]!) && /^-[a-z]*c$/.test(argv[1]!)) return readCommandLine(argv[2]!);
  return { text: argv.join(' '), tokens: argv.map((word) => ({ word })) };
}

/** The operators of a line, for messages: `;`, `&&`, `>` … in order, without repeats. */
export function operatorsOf(command: CommandLine): string[] {
  return [...new Set(command.tokens.flatMap((t) => ('op' in t ? [t.op] : [])))];
}

function substitutionOp(tokens: readonly CommandToken[]): string | undefined {
  return tokens.some((t) => 'op' in t && (t.op === '<(' || t.op === '>('))
    ? 'a process substitution (<(…) or >(…))'
    : undefined;
}

/**
 * The first thing in `line` a shell would treat as more than words and operators: backticks,
 * `$` expansions, a newline (it starts another command), a comment, an unterminated quote.
 */
function scanHazard(line: string): string | undefined {
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      continue;
    }
    if (ch === '\\') {
      if (i + 1 >= line.length) return 'a trailing backslash';
      if (quote === undefined && (line[i + 1] === '\n' || line[i + 1] === '\r'))
        return 'a newline (it starts another command)';
      i++;
      continue;
    }
    if (ch === '`') return 'a command substitution (backticks)';
    if (ch === '$' && /[A-Za-z0-9_{(?!#@*$-]/.test(line[i + 1] ?? ''))
      return line[i + 1] === '(' ? 'a command substitution ($(…))' : 'a substitution ($…)';
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      continue;
    }
    if (ch === '\n' || ch === '\r') return 'a newline (it starts another command)';
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return 'a comment (#)';
  }
  return quote === undefined ? undefined : 'an unterminated quote';
}
