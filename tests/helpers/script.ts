import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Backend, Posture } from '../../engine/definitions/index.js';
import { ScriptTransport } from '../../engine/transports/script/index.js';
import type { AgentEvent, AgentSession, StartSessionOptions } from '../../engine/transports/index.js';

/** The script backend's descriptor, as much of it as a transport test needs. */
export const SCRIPT_DESCRIPTOR: Backend = {
  description: 'script backend (tests)',
  protocol: 'script',
  postureMap: { plan: {}, default: {}, acceptEdits: {}, full: {} },
  clarifySupport: true,
  granularity: 'stream',
  honorsAllowedTools: false,
  costProfile: 'free',
  modelSelection: 'none',
  editToolNames: ['write', 'edit', 'delete', 'rename'],
};

/** Writes a script (YAML text, or a value rendered as YAML) into `dir`; returns its absolute path. */
export async function writeScript(dir: string, script: string | object, name = 'script.yaml'): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof script === 'string' ? script : stringify(script));
  return path;
}

/** Reads a session's events one at a time, or up to the first event of a kind. */
export class EventReader {
  readonly seen: AgentEvent[] = [];
  readonly #iterator: AsyncIterator<AgentEvent>;

  constructor(events: AsyncIterable<AgentEvent>) {
    this.#iterator = events[Symbol.asyncIterator]();
  }

  /** The next event, or undefined once the stream has ended. */
  async next(): Promise<AgentEvent | undefined> {
    const step = await this.#iterator.next();
    if (step.done) return undefined;
    this.seen.push(step.value);
    return step.value;
  }

  /** Every event up to and including the first of `type`; throws if the stream ends first. */
  async until<T extends AgentEvent['type']>(type: T): Promise<AgentEvent[]> {
    const out: AgentEvent[] = [];
    for (;;) {
      const event = await this.next();
      if (event === undefined)
        throw new Error(`stream ended before a ${type} event; saw ${out.map((e) => e.type).join(', ')}`);
      out.push(event);
      if (event.type === type) return out;
    }
  }

  /** Every remaining event until the stream ends. */
  async rest(): Promise<AgentEvent[]> {
    const out: AgentEvent[] = [];
    for (let event = await this.next(); event !== undefined; event = await this.next()) out.push(event);
    return out;
  }
}

export interface ScriptStart {
  cwd: string;
  /** A script path, or inline YAML text / a value. */
  script: string | object;
  posture?: Posture;
  brief?: string;
  sessionId?: string;
  sessionDir?: string;
  resumeSessionId?: string;
  env?: NodeJS.ProcessEnv;
}

/** Starts a script session straight on the transport (no session service). */
export async function startScript(start: ScriptStart): Promise<{ session: AgentSession; reader: EventReader }> {
  const isPath = typeof start.script === 'string' && start.script.startsWith('/') && !start.script.includes('\n');
  const options: StartSessionOptions = {
    sessionId: start.sessionId ?? 'cs_test',
    cwd: start.cwd,
    brief: start.brief ?? 'do the work',
    posture: start.posture ?? 'full',
    descriptor: SCRIPT_DESCRIPTOR,
    options: isPath
      ? { script: start.script }
      : { scriptText: typeof start.script === 'string' ? start.script : stringify(start.script) },
  };
  if (start.sessionDir !== undefined) options.sessionDir = start.sessionDir;
  if (start.resumeSessionId !== undefined) options.resumeSessionId = start.resumeSessionId;
  if (start.env !== undefined) options.env = start.env;
  const session = await new ScriptTransport().start(options);
  return { session, reader: new EventReader(session.events) };
}

/** Event types in order, for compact sequence assertions. */
export function types(events: readonly AgentEvent[]): string[] {
  return events.map((e) => e.type);
}
