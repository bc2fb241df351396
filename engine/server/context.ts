import type { DefinitionSet } from '../definitions/index.js';
import type { PrometheusSink } from '../observability/index.js';
import type { SessionLog, SessionService } from '../session/index.js';
import type { AttachServer } from './attach/server.js';
import type { DbosRuns } from './dbos-runs.js';
import type { EventHub } from './hub.js';
import type { ResumeDispatcher } from './resume.js';
import type { SessionBridge } from './session-bridge.js';

/** What the routes work with: one server process, one registry, one hub. */
export interface ServerContext {
  home: string;
  token: string;
  /** Host header values this server answers to. */
  hosts: ReadonlySet<string>;
  service: SessionService;
  hub: EventHub;
  bridge: Pick<SessionBridge, 'subscribeRaw'>;
  attach: Pick<AttachServer, 'ownerOfSession' | 'ownerOfRun' | 'processes'>;
  /** The sessions of a run's running steps, as the process driving it reported them. */
  stepSessions?: (runId: string) => Record<string, string>;
  /** The supervised resume; absent → the resume route answers 503. */
  resume?: ResumeDispatcher;
  /** Resumes a flow run in a new process; absent → 503. */
  resumeRun?: (runId: string) => Promise<{ pid: number; log: string }>;
  metrics?: PrometheusSink;
  /** The dbos engine's runs, when the server has a database (`neo serve --database-url`, …). */
  dbos?: DbosRuns;
  definitions: () => DefinitionSet;
  /** The built web UI (dist/web); absent or missing → the API only. */
  webRoot?: string;
  heartbeatMs: number;
  maxQueue: number;
  log: SessionLog;
  startedAt: string;
  version: string;
}
