/**
 * A repository configures no agent CLI. Some CLIs read files of their working directory as their
 * own configuration — hooks and MCP servers that start processes outside any posture — and offer
 * no switch to ignore them (the descriptor's `projectConfig`). In a sandbox each one present is
 * covered for the session by an empty stand-in, bound read-only, whose source lies in the
 * session's folder under NEO_HOME (never in a tree the CLI can write); unconfined, nothing can
 * cover it, so the session is refused before the CLI starts.
 */
import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../../definitions/index.js';
import type { SandboxBind } from '../../execution/index.js';
import { NeoError } from '../../util/errors.js';

/** The workspace's configuration files of this CLI that are present, relative to `cwd`. */
export function presentProjectConfig(
  backendId: string,
  descriptor: Backend,
  cwd: string,
): Array<{ path: string; folder: boolean }> {
  const found: Array<{ path: string; folder: boolean }> = [];
  for (const path of descriptor.projectConfig ?? []) {
    const stat = lstatSync(join(cwd, path), { throwIfNoEntry: false });
    if (stat === undefined) continue;
    // A link would move the stand-in to wherever it points: refused like the unconfined case.
    if (stat.isSymbolicLink()) throw refused(backendId, descriptor, path, 'is a link');
    found.push({ path, folder: stat.isDirectory() });
  }
  return found;
}

/**
 * Read-only stand-ins over each present configuration file (an empty JSON object for `.json`,
 * else empty) and folder (empty), made under `dir`; the error when the session is unconfined.
 */
export function projectConfigStandIns(
  backendId: string,
  descriptor: Backend,
  cwd: string,
  confinement: { confined: false } | { confined: true; dir: string },
): SandboxBind[] {
  const present = presentProjectConfig(backendId, descriptor, cwd);
  if (present.length === 0) return [];
  if (!confinement.confined) throw refused(backendId, descriptor, present[0]!.path, 'is there');
  mkdirSync(join(confinement.dir, 'folder'), { recursive: true, mode: 0o700 });
  writeFileSync(join(confinement.dir, 'file.json'), '{}\n', { mode: 0o600 });
  writeFileSync(join(confinement.dir, 'file'), '', { mode: 0o600 });
  return present.map(({ path, folder }) => ({
    path: join(confinement.dir, folder ? 'folder' : path.endsWith('.json') ? 'file.json' : 'file'),
    at: join(cwd, path),
  }));
}

function refused(backendId: string, descriptor: Backend, path: string, why: string): NeoError {
  const name = descriptor.displayName ?? backendId;
  return new NeoError(
    'TRANSPORT_PROJECT_CONFIG',
    `the workspace's ${path} ${why}: ${name} would run the hooks or MCP servers it names, outside the posture, and has no switch to ignore it`,
    {
      hint: `run the step with \`sandbox: bwrap\` (neo shows ${name} an empty stand-in), or remove ${path} from the repository`,
    },
  );
}
