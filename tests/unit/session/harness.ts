/** A session service over fake transports, in a temp NEO_HOME, closed after each test. */
import { afterEach } from 'vitest';
import type { Backend } from '../../../engine/definitions/index.js';
import {
  createSessionService,
  MemoryMetrics,
  type SessionClock,
  type SessionLog,
  type SessionService,
} from '../../../engine/session/index.js';
import { backendData, testDefinitions } from '../../fixtures/session/definitions.js';
import { FakeTransport } from '../../fixtures/session/fake-transport.js';
import { tempDir } from '../../helpers/temp.js';
import { defined } from '../../../engine/util/defined.js';

const open: SessionService[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

/** Collects warnings so tests can assert them (and nothing hits stderr). */
export class RecordingLog implements SessionLog {
  readonly warnings: Array<{ event: string; fields?: Record<string, unknown> }> = [];
  readonly infos: string[] = [];
  info(event: string): void {
    this.infos.push(event);
  }
  warn(event: string, fields?: Record<string, unknown>): void {
    this.warnings.push(fields === undefined ? { event } : { event, fields });
  }
}

export interface Harness {
  home: string;
  cwd: string;
  service: SessionService;
  transport: FakeTransport;
  transports: Map<string, FakeTransport>;
  metrics: MemoryMetrics;
  log: RecordingLog;
}

export async function harness(
  options: {
    backends?: Record<string, Backend>;
    idleTimeoutMs?: number;
    clock?: SessionClock;
    routing?: Record<string, unknown>;
    config?: Record<string, unknown>;
    trackRecord?: (id: string) => string[] | undefined;
    home?: string;
  } = {},
): Promise<Harness> {
  const home = options.home ?? (await tempDir('neo-session-home-'));
  const cwd = await tempDir('neo-session-cwd-');
  const backends = options.backends ?? { fake: backendData() };
  const transports = new Map(Object.keys(backends).map((id) => [id, new FakeTransport(id)]));
  const metrics = new MemoryMetrics();
  const log = new RecordingLog();
  const extra: { routing?: Record<string, unknown>; config?: Record<string, unknown> } = {};
  if (options.routing) extra.routing = options.routing;
  if (options.config) extra.config = options.config;
  const service = createSessionService({
    home,
    definitions: testDefinitions(backends, extra),
    transports: async (id) => transports.get(id),
    metrics,
    log,
    defaultCwd: cwd,
    ...defined({ idleTimeoutMs: options.idleTimeoutMs, clock: options.clock, trackRecord: options.trackRecord }),
  });
  open.push(service);
  return { home, cwd, service, transport: transports.values().next().value!, transports, metrics, log };
}

export const OWNER = { scope: 'owner' };
