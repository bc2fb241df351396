import {
  probeProcessBound,
  probeSandbox,
  SANDBOX_KINDS,
  type ProcessBoundInfo,
  type SandboxAvailability,
} from '../../engine/execution/index.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';

/**
 * `neo doctor`: what works on this machine. Each sandbox kind is tried for real (bwrap: the
 * smallest sandbox with every namespace), and what does not work says why and how to fix it; so
 * is the process bound of a flow's commands (a pids cgroup made and removed, else prlimit).
 */
export async function run(io: CommandIO, options: { json?: boolean }): Promise<number> {
  const sandboxes = await Promise.all(SANDBOX_KINDS.map((kind) => probeSandbox(kind, io.env)));
  const processBound = probeProcessBound();
  if (options.json) {
    writeJson(io.stdout, { sandboxes, processBound });
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  for (const found of sandboxes) writeLine(io.stdout, sandboxLine(found, p));
  writeLine(io.stdout, boundLine(processBound, p));
  writeLine(io.stdout, p.dim('backends: `neo backends list` probes each CLI'));
  return EXIT.ok;
}

function boundLine(bound: ProcessBoundInfo, p: ReturnType<typeof painter>): string {
  const what = 'process bound';
  if (bound.kind === 'none') return `${what}: ${p.red('none')}: ${bound.detail.replace(/^none: /, '')}`;
  return `${what}: ${bound.kind === 'cgroup' ? p.green(bound.detail) : p.yellow(bound.detail)}`;
}

function sandboxLine(found: SandboxAvailability, p: ReturnType<typeof painter>): string {
  const name = `sandbox ${found.kind}`;
  if (found.kind === 'none') return `${name}: ${p.dim('always available (no confinement)')}`;
  if (found.available) return `${name}: ${p.green('works')}${found.version ? ` (${found.version})` : ''}`;
  return `${name}: ${p.red('unavailable')}: ${found.detail}${found.hint ? `\n  ${p.dim(`hint: ${found.hint}`)}` : ''}`;
}
