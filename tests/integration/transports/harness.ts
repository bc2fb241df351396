import { join } from 'node:path';
import type { AgentSession, StartSessionOptions } from '../../../engine/transports/index.js';
import { EventReader } from '../../contract/event-reader.js';
import { fakeStartOptions, fakeTransport, readWireLog, type FakeProtocol } from '../../contract/fake-backends.js';
import { isAlive } from '../../contract/processes.js';
import { tempDir } from '../../helpers/temp.js';

/** One fake-CLI run: its folders, wire log and a way to start a session on it. */
export interface FakeRunHandle {
  cwd: string;
  home: string;
  log: string;
  options(overrides?: Partial<StartSessionOptions>): StartSessionOptions;
  start(overrides?: Partial<StartSessionOptions>): Promise<{ session: AgentSession; reader: EventReader }>;
  /** Messages the fake read from neo (stdin), in order. */
  received(): Array<Record<string, unknown>>;
  /** argv of each fake process started in this run. */
  argvs(): string[][];
  /** Every process the fake logged that is still running. */
  survivors(): number[];
}

export async function fakeRun(
  protocol: FakeProtocol,
  behaviour = 'normal',
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<FakeRunHandle> {
  const cwd = await tempDir('neo-fake-cwd-');
  const home = await tempDir('neo-fake-home-');
  const log = join(home, 'wire.jsonl');
  const options = (overrides: Partial<StartSessionOptions> = {}) =>
    fakeStartOptions(protocol, { cwd, home, log, behaviour, extraEnv }, overrides);
  return {
    cwd,
    home,
    log,
    options,
    async start(overrides = {}) {
      const session = await fakeTransport(protocol).start(options(overrides));
      return { session, reader: new EventReader(session) };
    },
    received: () =>
      readWireLog(log)
        .filter((r) => r.dir === 'in')
        .map((r) => r.message ?? {}),
    argvs: () =>
      readWireLog(log)
        .filter((r) => r.dir === 'argv')
        .map((r) => r.argv ?? []),
    survivors() {
      const pids = new Set<number>();
      for (const record of readWireLog(log)) {
        pids.add(record.pid);
        if (record.childPid !== undefined) pids.add(record.childPid);
      }
      return [...pids].filter(isAlive);
    },
  };
}
