/**
 * The environment of an agent CLI: an allowlist, sandboxed or not. An agent is untrusted: the
 * key of another provider, a CI token, a database URL in neo's environment are none of its
 * business, and a switch in the user's shell that makes a CLI trust its workspace or skip its
 * own checks is never inherited — neo sets those itself (`environment.pin`), last.
 */
import type { Backend } from '../../definitions/index.js';
import { confinedEnv } from '../../execution/index.js';

/**
 * What any CLI needs to reach its model through the user's network (proxies, extra CA
 * certificates) and a scratch folder; none of it is a credential of a provider.
 */
export const REACH_ENV_NAMES: readonly string[] = [
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
  'ALL_PROXY',
  'all_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'TMPDIR',
];

export interface AgentEnvParts {
  /** The session's own home (HOME, XDG_*, each configHome variable), when the CLI is confined. */
  home?: Readonly<Record<string, string>>;
  /** Further names to keep: the credential variables the user's own config names (`namesEnv`). */
  named?: readonly string[];
  /** What its sandbox sets (a workspace's lent toolchains), when the CLI is confined. */
  sandbox?: Readonly<Record<string, string>>;
  /** The posture's `settings.env` (OpenCode's OPENCODE_PERMISSION). */
  posture?: Readonly<Record<string, string>>;
}

/**
 * The CLI's whole environment: `confinedEnv`'s base, REACH_ENV_NAMES, the descriptor's
 * `command.authEnv`, `environment.keep`, the variables `configHome` names (unconfined, where the
 * user's own config lives) and `parts.named`; then the descriptor's `env`, the sandbox's, the session's home,
 * the posture's variables and, over everything, `environment.pin`.
 */
export function agentEnv(descriptor: Backend, base: NodeJS.ProcessEnv, parts: AgentEnvParts = {}): NodeJS.ProcessEnv {
  const keep = [
    ...REACH_ENV_NAMES,
    ...(descriptor.command?.authEnv ?? []),
    ...(descriptor.environment?.keep ?? []),
    ...(parts.named ?? []),
    ...(parts.home === undefined ? configHomeVariables(descriptor) : []),
  ];
  return confinedEnv(base, {
    keep,
    set: {
      ...resolvedEnv(base, descriptor.env),
      ...parts.sandbox,
      ...parts.home,
      ...parts.posture,
      ...descriptor.environment?.pin,
    },
  });
}

/** Every variable a descriptor's `configHome` reads (its `variable`s, and those its `from` names). */
export function configHomeVariables(descriptor: Backend): string[] {
  const names: string[] = [];
  for (const entry of descriptor.configHome ?? []) {
    if (entry.variable !== undefined) names.push(entry.variable);
    for (const match of (entry.from ?? '').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) names.push(match[1]!);
  }
  return names;
}

/** The descriptor's `env`, `${VAR}` read from neo's environment (unset: empty). */
function resolvedEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(extra ?? {}))
    out[key] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => base[name] ?? '');
  return out;
}
