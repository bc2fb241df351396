/** Transports: the contract every backend adapter implements, and the protocol → adapter table. */
import type { DotenvLayers } from '../agent/index.js';
import type { Backend, Definition } from '../definitions/index.js';
import type { Transport } from './types.js';
import { defined } from '../util/defined.js';
import { isAbsolute } from 'node:path';
export { isPermanentProviderCode, PROVIDER_CODES, type ProviderCode } from './shared/provider-failure.js';
export { wireMcpServers } from './shared/mcp-wire.js';

export type {
  AgentEvent,
  AgentEventType,
  AgentSession,
  ChecklistEntry,
  Availability,
  ProvisionPlan,
  StartSessionOptions,
  SessionSandbox,
  Transport,
  Usage,
} from './types.js';

/**
 * What a transport may take from the definitions its caller loaded, instead of reading them
 * again from the session's folder when a session starts.
 */
export interface TransportContext {
  /**
   * The neo.yaml layers (user, then project) loaded with the caller's definitions. neo's own
   * agent reads its provider from these: in a flow they were read when the run started, and the
   * project's `.neo/neo.yaml` on disk may since have been written by a confined step (in
   * `inplace` isolation the workspace is the checkout).
   */
  configs?: readonly Definition<'config'>[];
  /**
   * The user's and the project's `.env`, read with those definitions (held in memory, never
   * written anywhere): what the agent's `${NAME}` references fall back on after the environment,
   * so a key a confined step adds to `.neo/.env` neither replaces the run's nor picks another
   * default provider.
   */
  dotenv?: DotenvLayers;
}

/** Builds a transport for one backend descriptor. */
export type TransportFactory = (backend: Definition<'backend'>, context?: TransportContext) => Transport;

/**
 * Adapters by protocol, imported lazily so a command pays only for the adapters it uses.
 * Adding a protocol = one folder under engine/transports/ + one line here; adding a backend
 * that speaks an existing protocol = one descriptor file, no code.
 */
const FACTORIES: Partial<Record<Backend['protocol'], () => Promise<TransportFactory>>> = {
  script: () => import('./script/index.js').then((m) => (backend) => m.createScriptTransport(backend)),
  'claude-code': () => import('./claude-code/index.js').then((m) => (backend) => m.createClaudeCodeTransport(backend)),
  codex: () => import('./codex/index.js').then((m) => (backend) => m.createCodexTransport(backend)),
  acp: () => import('./acp/index.js').then((m) => (backend) => m.createAcpTransport(backend)),
  neo: () =>
    import('./neo/index.js').then(
      (m) => (backend, context) =>
        m.createNeoTransport(backend, defined({ configs: context?.configs, dotenv: context?.dotenv })),
    ),
};

/** The transport for a backend descriptor, or undefined when no adapter speaks its protocol. */
export async function createTransport(
  backend: Definition<'backend'>,
  context?: TransportContext,
): Promise<Transport | undefined> {
  const load = FACTORIES[backend.data.protocol];
  if (load === undefined) return undefined;
  const factory = await load();
  return factory(backend, context);
}

/** Protocols that have an adapter. */
export function supportedProtocols(): Backend['protocol'][] {
  return Object.keys(FACTORIES) as Backend['protocol'][];
}

/**
 * The live availability of one backend (binary found, version, auth hint), never throwing: a
 * backend no adapter speaks is `unsupported`, a throwing probe `probe-failed`. What `neo
 * backends list` shows and `neo flow run --dry-run` warns about.
 */
export async function probeBackend(backend: Definition<'backend'>): Promise<import('./types.js').Availability> {
  try {
    const transport = await createTransport(backend);
    if (transport === undefined)
      return { available: false, status: 'unsupported', detail: `no adapter speaks protocol ${backend.data.protocol}` };
    return await transport.probeAvailability();
  } catch (error) {
    return { available: false, status: 'probe-failed', detail: error instanceof Error ? error.message : String(error) };
  }
}

/** What stands in the way of a backend's sessions here, in the words its session would end with. */
export interface BackendBlocker {
  message: string;
  hint?: string;
}

/**
 * Why a session on `backend` cannot start on this machine, told without starting one and without
 * running anything: a CLI backend's executable that is nowhere to be found, neo's own agent with
 * no provider or no key. A flow asks before it makes its worktree, so a missing key or CLI is
 * said up front, not after earlier steps ran. What neo cannot see from here (a CLI's own login,
 * a provider refusing the key) is left to the session, which says so when it starts.
 */
export async function backendBlocker(
  backend: Definition<'backend'>,
  context: TransportContext & { env: NodeJS.ProcessEnv },
): Promise<BackendBlocker | undefined> {
  const { env } = context;
  if (backend.data.protocol === 'neo') {
    // Reads neo.yaml (the layers the run loaded) and the keys: no request is made.
    const availability = await (await createTransport(backend, context))?.probeAvailability();
    if (availability === undefined || availability.available) return undefined;
    return { message: availability.detail ?? availability.status, ...defined({ hint: availability.hint }) };
  }
  if (backend.data.command === undefined) return undefined;
  const { binaryMissing, requestedBinary, resolveBinary } = await import('./shared/index.js');
  // A relative path is resolved in the session's folder, which does not exist yet: left to it.
  const wanted = requestedBinary(backend.id, backend.data, env);
  if (wanted.includes('/') && !isAbsolute(wanted)) return undefined;
  if (resolveBinary(backend.id, backend.data, env) !== undefined) return undefined;
  const error = binaryMissing(backend.id, backend.data, env);
  return { message: error.message, ...defined({ hint: error.hint }) };
}
