/**
 * The verify command that decides a persona's verdict. A persona's `rules.verify` is split into
 * argv and run directly — no shell, so nothing can be spliced into it, and a line that needs a
 * shell (chains, pipes, redirections) is refused with a hint to put it in a script. Inside a
 * flow the step's own gate runner is used instead: a driver persona's verify is compiled into
 * the step's gate (flow/core/compile-agent.ts) and runs confined like every gate.
 *
 * Outside a flow (`neo persona run`, the control plane's resume) the session it judges has no
 * sandbox, and neither has its check; it runs code the agent wrote, so it gets what a confined
 * command gets of the environment (the allowlist, `confinedEnv`), never neo's own: a provider
 * key or token in neo's environment is not the agent's to read through its test script.
 */
import { confinedEnv, lastLines, spawnProcess } from '../execution/index.js';
import { UsageError } from '../util/errors.js';
import { readCommandLine } from '../posture/index.js';
import type { CheckResult } from './decisions.js';
import { defined } from '../util/defined.js';

/** Runs the check; `maxAttempts` failing runs end in `failed` (0: until the rounds run out). */
export interface Checker {
  readonly command: string;
  readonly maxAttempts: number;
  run(signal: AbortSignal): Promise<CheckResult>;
}

/** Lines of a failing check's output kept for guidance and the record. */
export const CHECK_TAIL_LINES = 60;
/** A check is a test run, not a server: this long and it counts as failed. */
export const CHECK_TIMEOUT_MS = 15 * 60_000;

/** The argv of a verify command, or a usage error explaining why it cannot run without a shell. */
export function verifyArgv(command: string): string[] {
  const read = readCommandLine(command);
  const words = read.tokens.flatMap((t) => ('word' in t ? [t.word] : []));
  if (read.hazard !== undefined || words.length !== read.tokens.length || words.length === 0) {
    throw new UsageError('PERSONA_VERIFY_NOT_SIMPLE', `the verify command \`${command}\` is not one simple command`, {
      hint: 'verify runs without a shell: put chains, pipes or redirections in a script (e.g. `npm run check`) and name that',
    });
  }
  return words;
}

/** A checker for a persona's `rules.verify`, run in `cwd`. */
export function commandChecker(
  command: string,
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Checker {
  const [file, ...args] = verifyArgv(command);
  return {
    command,
    maxAttempts: 0,
    async run(signal) {
      const result = await spawnProcess([file!, ...args], {
        cwd: options.cwd,
        env: confinedEnv(options.env ?? process.env),
        timeoutMs: options.timeoutMs ?? CHECK_TIMEOUT_MS,
        signal,
        label: 'verify',
      }).result;
      return {
        command,
        passed: !result.failed,
        ...defined({ exitCode: result.exitCode }),
        timedOut: result.timedOut,
        tail: lastLines(result.all, CHECK_TAIL_LINES) || (result.spawnError === undefined ? '' : result.spawnError),
        durationMs: result.durationMs,
      };
    },
  };
}
