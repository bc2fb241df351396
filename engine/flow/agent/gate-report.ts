import { open } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';
import {
  gateRunnerParts,
  needsScripts,
  resolveScripts,
  type RunnerKind,
  type RunnerPart,
} from '../core/gate-runner.js';
import { judgeReport, reportedCounts, type ReportVerdict } from '../core/runner-report.js';

/** The runners a gate's command runs in one tree. */
export interface GateRunners {
  kinds: RunnerKind[];
}

/** A `package.json` larger than this is not read for its scripts (the gate keeps exit-code semantics). */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * The runners of a gate's command, a package script resolved from the `package.json` at the
 * gate's folder in its fresh tree — read before the gate's command starts, so what it reads is
 * the snapshot neo wrote (the protected original under `@node`). An agent that rewrote an
 * unprotected `scripts.test` could have made it `true` anyway: what the gate runs is only as
 * protected as its manifest.
 */
export async function gateRunners(command: string, cwd: string): Promise<GateRunners> {
  let parts: RunnerPart[] = gateRunnerParts(command);
  if (needsScripts(parts)) parts = resolveScripts(parts, await manifestScripts(join(cwd, 'package.json')));
  const kinds = parts.flatMap((part) => ('kind' in part && part.silent !== true ? [part.kind] : []));
  return { kinds };
}

/** The gate's verdict on a run that exited 0: no runner recognised is a pass, as before. */
export function judgeRun(runners: GateRunners, output: string, floor: number | undefined): ReportVerdict | undefined {
  return runners.kinds.length === 0 ? undefined : judgeReport(runners.kinds, output, floor);
}

/** What the step's base ran (its floor), from a `baseline` run's output whatever its exit. */
export function baseFloor(runners: GateRunners, output: string): number | undefined {
  return runners.kinds.length === 0 ? undefined : reportedCounts(runners.kinds, output)?.ran;
}

/** `scripts` of a manifest: a regular file, not followed through a link, capped; else none. */
async function manifestScripts(file: string): Promise<Record<string, unknown>> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return {};
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_MANIFEST_BYTES) return {};
    const parsed = JSON.parse(await handle.readFile('utf8')) as unknown;
    const scripts = (parsed as { scripts?: unknown } | null)?.scripts;
    return typeof scripts === 'object' && scripts !== null ? (scripts as Record<string, unknown>) : {};
  } catch {
    return {};
  } finally {
    await handle.close();
  }
}
