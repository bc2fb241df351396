/**
 * Whether a sandbox kind works on this machine, asked once per process before anything that
 * needs it starts. Asked for and unavailable is an error that says why and how to fix it: a
 * run never falls back to running unconfined.
 */
import { NeoError } from '../util/errors.js';
import { sandboxOf } from './sandbox.js';
import type { SandboxKind } from './sandbox-spec.js';
import { spawnProcess } from './spawn.js';
import { BWRAP, bwrapProgram } from './sandbox-bwrap.js';
import { defined } from '../util/defined.js';

export interface SandboxAvailability {
  kind: SandboxKind;
  available: boolean;
  /** `bubblewrap 0.8.0`. */
  version?: string;
  /** Why not, in one line (what the sandbox said). */
  detail?: string;
  /** What to do about it. */
  hint?: string;
}

const INSTALL_HINT =
  'install bubblewrap: `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install bubblewrap` (Fedora), `apk add bubblewrap` (Alpine), `pacman -S bubblewrap` (Arch); or set `sandbox: none` where running unconfined is acceptable';
const USERNS_HINT =
  'bwrap needs unprivileged user namespaces: `sysctl -w kernel.unprivileged_userns_clone=1` (Debian), `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu ≥ 23.10), `user.max_user_namespaces` > 0; in a container, allow them (e.g. docker `--security-opt seccomp=unconfined`)';
const PROBE_TIMEOUT_MS = 10_000;

const cache = new Map<string, Promise<SandboxAvailability>>();

/** Whether `kind` works here (cached per PATH). Never throws. */
export function probeSandbox(kind: SandboxKind, env: NodeJS.ProcessEnv = process.env): Promise<SandboxAvailability> {
  if (kind === 'none') return Promise.resolve({ kind, available: true });
  const key = `${kind}\0${env.PATH ?? ''}`;
  let probe = cache.get(key);
  if (probe === undefined) {
    probe = probeBwrap(env);
    cache.set(key, probe);
  }
  return probe;
}

/** Throws SANDBOX_UNAVAILABLE (saying why and how to install or enable it) unless `kind` works here. */
export async function requireSandbox(kind: SandboxKind, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const found = await probeSandbox(kind, env);
  if (found.available) return;
  throw new NeoError(
    'SANDBOX_UNAVAILABLE',
    `the ${kind} sandbox is asked for but unavailable: ${found.detail}`,
    defined({ hint: found.hint }),
  );
}

async function probeBwrap(env: NodeJS.ProcessEnv): Promise<SandboxAvailability> {
  const version = await spawnProcess([bwrapProgram(env.PATH), '--version'], {
    cwd: '/',
    env,
    timeoutMs: PROBE_TIMEOUT_MS,
    label: 'bwrap --version',
  }).result;
  if (version.spawnError !== undefined)
    return {
      kind: 'bwrap',
      available: false,
      detail: /ENOENT/.test(version.spawnError)
        ? `${BWRAP} (bubblewrap) is not installed (not found on PATH)`
        : version.spawnError,
      hint: INSTALL_HINT,
    };
  const named = version.stdout.trim() || undefined;
  // The smallest real sandbox: every namespace, the host read-only, a command run inside.
  const tried = await sandboxOf('bwrap').run(['/bin/true'], {
    cwd: '/',
    binds: [],
    hide: [],
    network: false,
    env,
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  if (tried.exitCode === 0) return { kind: 'bwrap', available: true, ...(named ? { version: named } : {}) };
  const said = (tried.stderr.trim().split('\n')[0] ?? '') || tried.spawnError || `exit ${tried.exitCode ?? '?'}`;
  return {
    kind: 'bwrap',
    available: false,
    ...(named ? { version: named } : {}),
    detail: `${named ?? BWRAP} is installed but cannot create a sandbox here: ${said}`,
    hint: /namespace|permission|EPERM|setting up uid map/i.test(said) ? USERNS_HINT : INSTALL_HINT,
  };
}
