/** The `neo` backend: neo's own agent, in process, behind the AgentSession contract. */
import { loadAgentSettings } from '../../agent/index.js';
import type { Definition } from '../../definitions/index.js';
import { NeoError } from '../../util/errors.js';
import { neoHome } from '../../util/neo-home.js';
import { packageVersion } from '../../util/package-root.js';
import type { AgentSession, Availability, StartSessionOptions, Transport } from '../types.js';
import type { NeoTransportDeps } from './deps.js';
import { NeoSession } from './session.js';
import { defined } from '../../util/defined.js';

export type { NeoTransportDeps } from './deps.js';
export { NeoSession } from './session.js';

/** Builds the transport for a descriptor with `protocol: neo`. */
export function createNeoTransport(
  backend: Pick<Definition<'backend'>, 'id' | 'data'>,
  deps: NeoTransportDeps = {},
): Transport {
  return {
    id: backend.id,
    probeAvailability: () => probeNeo(deps),
    start(options: StartSessionOptions): Promise<AgentSession> {
      return NeoSession.open(backend.id, options, deps);
    },
  };
}

export default createNeoTransport;

/**
 * Nothing to install: the agent is available when neo.yaml (or the environment) names a provider
 * whose key is set. A missing key is `unauthenticated`, with the variable to set. Never throws.
 */
async function probeNeo(deps: NeoTransportDeps): Promise<Availability> {
  const env = deps.env ?? process.env;
  try {
    const settings = await loadAgentSettings({
      cwd: process.cwd(),
      home: deps.home ?? neoHome(env),
      env,
      ...defined({ configs: deps.configs, dotenv: deps.dotenv }),
    });
    const p = settings.provider;
    return {
      available: true,
      status: 'ok',
      version: packageVersion(),
      detail: `provider ${p.name} (${p.api}) at ${p.baseUrl}${settings.model !== undefined ? `, model ${settings.model}` : ''}`,
    };
  } catch (error) {
    const code = error instanceof NeoError ? error.code : '';
    const message = error instanceof Error ? error.message : String(error);
    const hint = error instanceof NeoError ? error.hint : undefined;
    const status = code === 'AGENT_SECRET_MISSING' || code === 'AGENT_NO_PROVIDER' ? 'unauthenticated' : 'probe-failed';
    return { available: false, status, detail: message, ...defined({ hint }) };
  }
}
