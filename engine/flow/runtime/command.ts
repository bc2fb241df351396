import { confinedSpec, sandboxOf, type ProcessResult, type SandboxBind } from '../../execution/index.js';
import type { SandboxSetting } from '../core/plan.js';
import { runConfinement, type RunSite } from './confine.js';
import { defined } from '../../util/defined.js';

/** One shell command to run: the user's own text, values only through `env`. */
export interface CommandSpec {
  command: string;
  cwd: string;
  /** Added to the process environment. */
  env: Record<string, string>;
  timeoutMs?: number;
  /** Kill the command when it writes nothing for this long. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  /** Called with each chunk of output (stdout and stderr). */
  onOutput?: (chunk: string) => void;
  /** Where it runs: the sandbox and the run it belongs to (absent: unconfined). */
  sandbox?: { setting: SandboxSetting; site: RunSite; tree?: string; binds?: readonly SandboxBind[] };
}

const KILL_GRACE_MS = 2000;

/**
 * Runs `/bin/sh -c <command>` (the plan author's own command as the shell's single argument)
 * through its sandbox and the process module: its own group, bounded tails, and a timeout, an
 * idle timeout or an abort kills the whole tree.
 */
export function runCommand(spec: CommandSpec): Promise<ProcessResult> {
  const env = { ...process.env, ...spec.env };
  const setting = spec.sandbox?.setting ?? { kind: 'none', network: true, source: 'default' };
  const confinement =
    spec.sandbox === undefined
      ? { workspace: spec.cwd, cwd: spec.cwd, neoHome: '', network: true, env }
      : runConfinement(spec.sandbox.site, setting, {
          cwd: spec.cwd,
          env,
          ...defined({ tree: spec.sandbox.tree, binds: spec.sandbox.binds }),
        });
  return sandboxOf(setting.kind).run(
    ['/bin/sh', '-c', spec.command],
    confinedSpec({ ...confinement, ...defined({ timeoutMs: spec.timeoutMs }) }),
    {
      graceMs: KILL_GRACE_MS,
      label: setting.kind === 'none' ? 'sh -c' : `${setting.kind}: sh -c`,
      ...defined({ idleTimeoutMs: spec.idleTimeoutMs, signal: spec.signal, onOutput: spec.onOutput }),
    },
  );
}
