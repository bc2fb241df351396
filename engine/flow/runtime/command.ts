import {
  confinedEnv,
  confinedSpec,
  lastLines,
  sandboxOf,
  type ProcessResult,
  type SandboxBind,
} from '../../execution/index.js';
import type { StepError } from '../core/state.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_MAX_PROCESSES } from '../core/command-limits.js';
import type { SandboxSetting } from '../core/plan.js';
import { lentEnv, runConfinement, type RunSite } from './confine.js';
import { defined } from '../../util/defined.js';

/** One shell command to run: the user's own text, values only through `env`. */
export interface CommandSpec {
  command: string;
  cwd: string;
  /** What neo sets for it (NEO_*, the step's `env:`), over the environment its sandbox allows. */
  env: Record<string, string>;
  /** Default: {@link DEFAULT_COMMAND_TIMEOUT_MS}; a command never runs without one. */
  timeoutMs?: number;
  /** Kill the command when it writes nothing for this long. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  /** Called with each chunk of output (stdout and stderr). */
  onOutput?: (chunk: string) => void;
  /**
   * Where it runs: the sandbox and the run it belongs to (absent: unconfined); a gate's fresh
   * `tree` shown at the workspace's path, and `binds` over it (read-only protected paths).
   */
  sandbox?: { setting: SandboxSetting; site: RunSite; tree?: string; binds?: readonly SandboxBind[] };
}

const KILL_GRACE_MS = 2000;
const UNCONFINED: SandboxSetting = { kind: 'none', network: true, source: 'default' };

/**
 * Runs `/bin/sh -c <command>` (the plan author's own command as the shell's single argument)
 * through its sandbox and the process module: its own group, bounded tails, a process bound,
 * and a timeout, an idle timeout, an abort or the bound refusing a fork kills the whole tree.
 * Whatever it started is ended when it exits: nothing of a command outlives its result.
 */
export function runCommand(spec: CommandSpec): Promise<ProcessResult> {
  const setting = spec.sandbox?.setting ?? UNCONFINED;
  // Confined, a Go or Rust workspace's processes are told where their lent toolchains are.
  const lent = spec.sandbox !== undefined && isConfined(setting) ? lentEnv(spec.sandbox.site.workspace) : {};
  const env = commandEnvironment(setting, { ...lent, ...spec.env });
  const timeoutMs = spec.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  // Unconfined, a command runs in its folder with its environment: no binds or hidden trees to
  // work out (each a few realpaths and stats per command).
  const sandboxSpec =
    spec.sandbox === undefined || !isConfined(setting)
      ? { cwd: spec.cwd, binds: [], hide: [], network: true, env, timeoutMs }
      : confinedSpec({
          ...runConfinement(spec.sandbox.site, setting, {
            cwd: spec.cwd,
            env,
            ...defined({ tree: spec.sandbox.tree, binds: spec.sandbox.binds }),
          }),
          timeoutMs,
        });
  return sandboxOf(setting.kind).run(['/bin/sh', '-c', spec.command], sandboxSpec, {
    graceMs: KILL_GRACE_MS,
    label: setting.kind === 'none' ? 'sh -c' : `${setting.kind}: sh -c`,
    killLeftovers: true,
    maxProcesses: maxProcessesOf(setting),
    ...defined({ idleTimeoutMs: spec.idleTimeoutMs, signal: spec.signal, onOutput: spec.onOutput }),
  });
}

/** Whether a command of this setting runs in a sandbox (absent: unconfined, as `runCommand` runs it). */
export function isConfined(setting: SandboxSetting | undefined): boolean {
  return (setting ?? UNCONFINED).kind !== 'none';
}

/**
 * The environment of a command. In a sandbox: the allowlist (`confinedEnv`), the secrets its
 * step and flow declare by name, then what neo sets — a provider key, a token or a database URL
 * in neo's environment never reaches it unasked, even with the network on. Unconfined
 * (`sandbox: none`): neo's whole environment, as the user's own shell would give it; stripping
 * it there would protect nothing (an unconfined process can read its parent's environment from
 * /proc) and would break the user's own commands.
 */
export function commandEnvironment(
  setting: SandboxSetting,
  set: Record<string, string>,
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  if (setting.kind === 'none') return Object.assign(definedValues(source), set);
  return confinedEnv(source, { keep: setting.secrets ?? [], set });
}

/** The most processes a command of this setting may have (a plan compiled before the bound: the default). */
export function maxProcessesOf(setting: SandboxSetting | undefined): number {
  return setting?.maxProcesses ?? DEFAULT_MAX_PROCESSES;
}

/** `hit its limit of 1024 processes and was killed`, when the command's bound refused a fork. */
export function processLimitNote(result: ProcessResult, setting: SandboxSetting | undefined): string | undefined {
  if (!result.processLimited) return undefined;
  return `hit its limit of ${maxProcessesOf(setting)} processes and was killed`;
}

function definedValues(env: NodeJS.ProcessEnv): Record<string, string> {
  // One pass, no entries arrays and no second copy: every command of a run builds one.
  const out: Record<string, string> = {};
  for (const name of Object.keys(env)) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** What a command's result means for its step: undefined when it succeeded, else the step's error. */
export function commandError(command: string, result: ProcessResult, setting?: SandboxSetting): StepError | undefined {
  if (result.spawnError !== undefined)
    return {
      code: 'FLOW_SPAWN_FAILED',
      message: `\`${command}\` could not start: ${result.spawnError}`,
      transient: true,
    };
  // Before the timeout: a flood stopped at its cap is what happened, whatever ended it.
  const limited = processLimitNote(result, setting);
  if (limited !== undefined)
    return {
      code: 'FLOW_STEP_PROCESS_LIMIT',
      message: `\`${command}\` ${limited}`,
      hint: 'a command that needs more processes says so with `maxProcesses:` on its step',
    };
  if (result.timedOut)
    return { code: 'FLOW_STEP_TIMEOUT', message: `\`${command}\` ran past its timeout and was killed` };
  if (result.idleTimedOut)
    return {
      code: 'FLOW_STEP_STALLED',
      message: `\`${command}\` wrote nothing for its idle timeout and was killed: stalled`,
      transient: true,
    };
  if (result.isCanceled) return { code: 'FLOW_INTERRUPTED', message: 'interrupted' };
  if (result.exitCode === 0) return undefined;
  const last = lastLines(result.stderr || result.stdout, 5);
  const how =
    result.exitCode === undefined ? `was killed by ${result.signal ?? 'a signal'}` : `exited ${result.exitCode}`;
  return { code: 'FLOW_COMMAND_FAILED', message: `\`${command}\` ${how}${last ? `: ${last}` : ''}` };
}
