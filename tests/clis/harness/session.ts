import { loadDefinitions, type Definition } from '../../../engine/definitions/index.js';
import { createTransport, type AgentSession, type StartSessionOptions } from '../../../engine/transports/index.js';
import { EventReader } from '../../contract/event-reader.js';
import type { Sandbox } from './sandbox.js';

/** The packaged descriptor of a backend (definitions/backends/<id>.yaml), as neo loads it. */
export async function packagedBackend(id: string, box: Sandbox): Promise<Definition<'backend'>> {
  const { set } = await loadDefinitions({ cwd: box.repo, home: box.baseEnv.NEO_HOME!, noProject: true });
  const backend = set.get('backend', id);
  if (backend === undefined) throw new Error(`no packaged backend ${id}`);
  return backend;
}

/** A live session on the real CLI through neo's adapter, with an event reader. */
export interface Driven {
  session: AgentSession;
  reader: EventReader;
}

/** Starts a session through the adapter the packaged descriptor names. */
export async function startSession(
  backend: Definition<'backend'>,
  options: Omit<StartSessionOptions, 'descriptor' | 'sessionId'> & { sessionId?: string },
): Promise<Driven> {
  const transport = await createTransport(backend);
  if (transport === undefined) throw new Error(`no transport for protocol ${backend.data.protocol}`);
  const session = await transport.start({
    sessionId: options.sessionId ?? `cs_cli_${Date.now()}`,
    descriptor: backend.data,
    ...options,
  });
  return { session, reader: new EventReader(session) };
}
