import { lastLines } from '../../execution/index.js';
import { runCommand } from '../runtime/command.js';
import type { RunSite } from '../runtime/confine.js';
import type { GateSpec } from '../core/plan.js';
import type { GateRun } from './driver.js';

/** Lines of a failing check's output that go back to the agent. */
export const GATE_TAIL_LINES = 60;

/**
 * Runs a verify gate once in the workspace (with its own timeout), and once more when the
 * flake check is on and the first run failed. Output is the check's own, never agent text
 * spliced into a command.
 */
export async function runGate(
  gate: GateSpec,
  site: { cwd: string; env: Record<string, string>; signal: AbortSignal; run: RunSite },
): Promise<GateRun> {
  const once = async () => {
    const result = await runCommand({
      command: gate.run,
      cwd: site.cwd,
      env: site.env,
      signal: site.signal,
      ...(gate.sandbox === undefined ? {} : { sandbox: { setting: gate.sandbox, site: site.run } }),
      ...(gate.timeoutMs === undefined ? {} : { timeoutMs: gate.timeoutMs }),
    });
    return {
      passed: result.exitCode === 0 && !result.timedOut,
      exitCode: result.exitCode,
      tail: result.spawnError ?? lastLines(result.all, GATE_TAIL_LINES),
      timedOut: result.timedOut,
      durationMs: result.durationMs,
    } satisfies GateRun;
  };
  const first = await once();
  if (first.passed || !gate.flakeCheck || site.signal.aborted) return first;
  const second = await once();
  return second.passed ? { ...second, flaky: true } : second;
}

/** The guidance a failing gate sends back to the same session. */
export function gateGuidance(gate: GateSpec, run: GateRun, attempt: number): string {
  const how = run.timedOut ? 'timed out' : `exited ${run.exitCode ?? 'abnormally'}`;
  return [
    `The check \`${gate.run}\` ${how} (attempt ${attempt} of ${gate.attempts}). Fix the cause; do not weaken or skip the check.`,
    'Last lines of its output:',
    '```',
    run.tail,
    '```',
  ].join('\n');
}
