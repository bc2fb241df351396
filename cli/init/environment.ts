/**
 * What `neo init` checks of the machine: which agent CLI is installed (the scaffold names the
 * first one found), and whether the test command's program lies under the user's home, which
 * every sandbox hides (pyenv, rustup, nvm, `pip --user`).
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, sep } from 'node:path';
import { runtimeLoan } from '../../engine/execution/index.js';
import { probeBackend } from '../../engine/transports/index.js';
import type { CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';

/** The agent CLIs a scaffold may name, in the order they are preferred. */
const AGENT_BACKENDS = ['claude-code', 'codex', 'gemini', 'opencode', 'copilot', 'droid'];

/** The first agent backend whose CLI is available here, else the first defined one, with how to install it. */
export async function chooseBackend(io: CommandIO): Promise<{ id: string; available: boolean; hint?: string }> {
  const { set } = await loadSetForCommand(io);
  const defined = AGENT_BACKENDS.flatMap((id) => {
    const definition = set.get('backend', id);
    return definition === undefined ? [] : [definition];
  });
  const probes = await Promise.all(defined.map((definition) => probeBackend(definition)));
  const found = defined.findIndex((_, index) => probes[index]!.available);
  if (found >= 0) return { id: defined[found]!.id, available: true };
  const first = probes[0];
  return {
    id: defined[0]?.id ?? 'claude-code',
    available: false,
    ...(first?.hint === undefined ? {} : { hint: first.hint }),
  };
}

/**
 * The program a command starts with, when PATH finds it under the user's home (real path): a
 * sandbox hides the home, so the gate would not see it there — unless it belongs to a runtime
 * the sandbox lends (nvm's `npm`, pyenv's `python3`, engine/execution/runtime-loan.ts). A relative program
 * path (`.venv/bin/python`) lies in the workspace and is not judged.
 */
export function hiddenTool(command: string, env: NodeJS.ProcessEnv): { name: string; path: string } | undefined {
  const name = command.trim().split(/\s+/)[0] ?? '';
  if (name === '' || name.includes('/')) return undefined;
  const home = realOrSelf(env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir());
  for (const dir of (env.PATH ?? '').split(delimiter).filter((d) => d !== '')) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    const real = realOrSelf(candidate);
    const within = (tree: string) => (path: string) => path === tree || path.startsWith(tree + sep);
    if (!within(home)(real) && !within(home)(candidate)) return undefined;
    const lent = runtimeLoan(env, [home]).binds;
    const shown = lent.some((bind) => within(bind.at ?? bind.path)(candidate) || within(bind.path)(real));
    return shown ? undefined : { name, path: candidate };
  }
  return undefined;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
