import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { lastLines } from '../../execution/index.js';
import type { ProtectedBase } from '../workspace/protected-base.js';
import { processLimitNote, runCommand } from '../runtime/command.js';
import type { RunSite } from '../runtime/confine.js';
import type { GateSpec } from '../core/plan.js';
import type { GateRun } from './driver.js';
import { defined } from '../../util/defined.js';

/** Lines of a failing check's output that go back to the agent. */
export const GATE_TAIL_LINES = 60;

/** Where a gate runs: the step's workspace, or — when the step protects paths — a fresh copy of it. */
export interface GateSite {
  cwd: string;
  env: Record<string, string>;
  signal: AbortSignal;
  run: RunSite;
  /** The step's protected paths: the gate runs on a fresh copy (made in `copyDir`) with them restored. */
  protect?: { base: ProtectedBase; copyDir: string };
}

/**
 * Runs a verify gate once (with its own timeout, in its sandbox), and once more when the flake
 * check is on and the first run failed. With protected paths each run gets a fresh copy of the
 * step's result in which they are as they were at the step's base, so what the agent did to a
 * test cannot change the verdict. One repo state in, one result out: nothing about attempts.
 * Output is the check's own, never agent text spliced into a command.
 */
export async function runGate(gate: GateSpec, site: GateSite): Promise<GateRun> {
  const once = async () => {
    const setting = gate.sandbox ?? { kind: 'none' as const, network: true, source: 'default' };
    const copy = site.protect?.copyDir;
    const edited = site.protect === undefined ? [] : await site.protect.base.changes();
    if (copy !== undefined) await site.protect!.base.freshCopy(copy);
    try {
      const result = await runCommand({
        command: gate.run,
        // In bwrap the copy appears at the workspace's own path; unconfined it is where it is.
        cwd:
          copy !== undefined && setting.kind === 'none'
            ? join(copy, relative(site.run.workspace.root, site.cwd))
            : site.cwd,
        env: site.env,
        signal: site.signal,
        sandbox: { setting, site: site.run, ...defined({ tree: copy }) },
        ...defined({ timeoutMs: gate.timeoutMs }),
      });
      const restored =
        edited.length === 0
          ? ''
          : `neo: protected paths were checked as they were before your change (edits to them do not count): ${edited.join(', ')}\n`;
      const limited = processLimitNote(result, setting);
      return {
        passed: result.exitCode === 0 && !result.timedOut && limited === undefined,
        exitCode: result.exitCode,
        tail:
          result.spawnError ??
          `${restored}${lastLines(result.all, GATE_TAIL_LINES)}${limited === undefined ? '' : `\nneo: the check ${limited}`}`,
        timedOut: result.timedOut,
        durationMs: result.durationMs,
      } satisfies GateRun;
    } finally {
      if (copy !== undefined) await rm(copy, { recursive: true, force: true });
    }
  };
  const first = await once();
  if (first.passed || !gate.flakeCheck || site.signal.aborted) return first;
  const second = await once();
  return second.passed ? { ...second, flaky: true } : second;
}
