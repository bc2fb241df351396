/**
 * What neo's own agent makes of the MCP servers a session starts with: the shape persona
 * `mcpServers`, a capability entry and ACP's `session/new` share (Claude-style `{command, args,
 * env}` or `{type: http|sse, url, headers}`, keyed by name). A server neo cannot use is kept as
 * a reason, never dropped silently. Its environment is the one allowlist every confined process
 * gets plus exactly the variables its `env` lists: a `${NAME}` there is the only way a secret of
 * the session's environment reaches it.
 */
import { confinedEnv } from '../../execution/index.js';
import { durationMs } from '../../util/duration.js';
import type { SecretValue } from '../../util/redact.js';

/** A call that takes longer is a tool error (a server's `timeout` overrides it). */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 120_000;

interface SpecBase {
  name: string;
  /** Every tool is read-only (true), or these tools are. */
  readOnly: true | ReadonlySet<string>;
  callTimeoutMs: number;
}

export interface StdioServerSpec extends SpecBase {
  kind: 'stdio';
  command: string;
  args: string[];
  /** The whole environment of the process. */
  env: Record<string, string>;
}

export interface RemoteServerSpec extends SpecBase {
  kind: 'http' | 'sse';
  url: URL;
  headers: Record<string, string>;
}

export type McpServerSpec = StdioServerSpec | RemoteServerSpec;

/** A configured server neo's agent does not start, and why. */
export interface IgnoredServer {
  name: string;
  reason: string;
}

/** Names a model can call: letters, digits, `_` and `-` (every provider accepts them). */
const NAME = /^[A-Za-z0-9_-]+$/;
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Reads every configured server; `env` is the session's environment `${NAME}` references read from. */
export function readServerSpecs(
  servers: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv,
): { specs: McpServerSpec[]; ignored: IgnoredServer[]; secrets: SecretValue[] } {
  const specs: McpServerSpec[] = [];
  const ignored: IgnoredServer[] = [];
  const secrets: SecretValue[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    const read = readOne(name, raw, env, secrets);
    if (typeof read === 'string') ignored.push({ name, reason: read });
    else specs.push(read);
  }
  return { specs, ignored, secrets };
}

function readOne(name: string, raw: unknown, env: NodeJS.ProcessEnv, secrets: SecretValue[]): McpServerSpec | string {
  if (!NAME.test(name)) return `its name must be letters, digits, _ or - (it becomes part of tool names)`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'its entry is not an object';
  const server = raw as Record<string, unknown>;
  const type = server.type ?? (typeof server.url === 'string' ? 'http' : 'stdio');
  const readOnly = readOnlyOf(server.readOnly);
  if (readOnly === undefined) return '`readOnly` must be true, false or a list of tool names';
  const callTimeoutMs = server.timeout === undefined ? DEFAULT_MCP_CALL_TIMEOUT_MS : durationMs(server.timeout);
  if (!Number.isFinite(callTimeoutMs) || callTimeoutMs <= 0) return '`timeout` must be a duration such as 30s';
  const base = { name, readOnly, callTimeoutMs };
  try {
    if (type === 'stdio') {
      if (typeof server.command !== 'string' || server.command === '') return 'a stdio server needs a `command`';
      const args = Array.isArray(server.args) ? server.args.map(String) : [];
      return { ...base, kind: 'stdio', command: server.command, args, env: serverEnv(server.env, env, name, secrets) };
    }
    if (type === 'http' || type === 'sse') {
      if (typeof server.url !== 'string') return `a ${type} server needs a \`url\``;
      let url: URL;
      try {
        url = new URL(server.url);
      } catch {
        return `its url is not a URL: ${server.url}`;
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return `its url must be http(s), not ${url.protocol}`;
      return { ...base, kind: type, url, headers: expandAll(server.headers, env, `${name}.headers`, secrets) };
    }
    return `unknown type \`${String(type)}\` (stdio, http or sse)`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function readOnlyOf(value: unknown): true | ReadonlySet<string> | undefined {
  if (value === undefined || value === false) return new Set();
  if (value === true) return true;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return new Set(value as string[]);
  return undefined;
}

/** The allowlist, then the server's own `env` with its references expanded. */
function serverEnv(
  listed: unknown,
  env: NodeJS.ProcessEnv,
  name: string,
  secrets: SecretValue[],
): Record<string, string> {
  return confinedEnv(env, { set: expandAll(listed, env, `${name}.env`, secrets) });
}

/** Expands `${NAME}` references; every value read is a secret to redact (it was kept out of the file for a reason). */
function expandAll(
  record: unknown,
  env: NodeJS.ProcessEnv,
  where: string,
  secrets: SecretValue[],
): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof record !== 'object' || record === null) return out;
  for (const [key, value] of Object.entries(record as Record<string, unknown>)) {
    out[key] = String(value).replace(REFERENCE, (_, ref: string) => {
      const found = env[ref];
      if (found === undefined || found === '')
        throw new Error(`${where}.${key} references \${${ref}}, which is not set in the session's environment`);
      secrets.push({ name: ref, value: found });
      return found;
    });
  }
  return out;
}

/** Whether a tool of this server only reads, by the server's configuration alone. */
export function isReadOnly(spec: McpServerSpec, tool: string): boolean {
  return spec.readOnly === true || spec.readOnly.has(tool);
}
