import type { DotenvLayers } from '../../agent/settings/index.js';
import type { ProjectProfile } from '../../capabilities/index.js';
import type { DefinitionSet } from '../../definitions/index.js';
import type { JsonLinesLog } from '../../observability/index.js';
import type { AgentStepDriver, SessionPort } from '../agent/driver.js';
import type { SessionHost } from './session-host.js';
import { defined } from '../../util/defined.js';

/**
 * What neo's own agent reads its provider from, as the run read it when it started: the
 * definitions' neo.yaml layers and the `.env` files, handed to the session service's transports
 * and to the llm decider, and the project's capability profile (run-profile.ts), handed to every
 * session start. The first agent step may come after a confined step wrote the project's `.neo/`
 * or any file detection reads (in `inplace` isolation the workspace is the checkout).
 */
export interface PinnedInputs {
  set: () => DefinitionSet;
  /** Undefined only before a resumed run has read them (nothing asks before then). */
  dotenv: () => DotenvLayers | undefined;
  /** Undefined with capabilities off (or before a resumed run has detected it). */
  profile: () => ProjectProfile | undefined;
}

/**
 * The agent side of a run, created on the first agent step so a plan without agents never
 * loads the session layer or a transport. Sub-flows share their parent's.
 */
export class AgentServices {
  readonly #home: string;
  readonly #set: () => DefinitionSet;
  readonly #dotenv: () => DotenvLayers | undefined;
  readonly #profile: () => ProjectProfile | undefined;
  readonly #overrides: { driver?: AgentStepDriver; sessions?: SessionPort; host?: SessionHost };
  #ready: Promise<{ driver: AgentStepDriver; sessions: SessionPort; close: () => Promise<void> }> | undefined;
  #log: JsonLinesLog | undefined;

  constructor(
    home: string,
    pinned: PinnedInputs,
    overrides: { driver?: AgentStepDriver; sessions?: SessionPort; host?: SessionHost } = {},
  ) {
    this.#home = home;
    this.#set = pinned.set;
    this.#dotenv = pinned.dotenv;
    this.#profile = pinned.profile;
    this.#overrides = overrides;
  }

  get(): Promise<{ driver: AgentStepDriver; sessions: SessionPort }> {
    this.#ready ??= this.#create();
    return this.#ready;
  }

  /** The run's decision log: the session service logs its code_session_* decisions there too. */
  useLog(log: JsonLinesLog): void {
    this.#log ??= log;
  }

  /** Stops every live session this run opened, then closes the decision log. */
  async close(): Promise<void> {
    if (this.#ready !== undefined) {
      const ready = await this.#ready.catch(() => undefined);
      await ready?.close();
    }
    await this.#log?.close();
  }

  /** Every agent step is a drive of the persona machine: by its driver persona, or by the step's own rules. */
  async #defaultDriver(): Promise<AgentStepDriver> {
    const { PersonaStepDriver } = await import('../../persona/index.js');
    const metrics = this.#overrides.host?.metrics;
    return new PersonaStepDriver({
      home: this.#home,
      definitions: this.#set,
      ...defined({ metrics, dotenv: this.#dotenv() }),
    });
  }

  async #create() {
    const driver = this.#overrides.driver ?? (await this.#defaultDriver());
    if (this.#overrides.sessions !== undefined)
      return { driver, sessions: this.#overrides.sessions, close: async () => {} };
    const [{ createSessionService, stderrLog }, { trackRecords, releaseRecorder }, { teeLogs }] = await Promise.all([
      import('../../session/index.js'),
      import('../../learning/index.js'),
      import('../../observability/index.js'),
    ]);
    const records = trackRecords(this.#home);
    const host = this.#overrides.host;
    const service = createSessionService({
      home: this.#home,
      definitions: this.#set(),
      ...defined({ dotenv: this.#dotenv(), projectProfile: this.#profile() }),
      trackRecord: (backend) => records.lines(backend),
      ...(this.#log === undefined ? {} : { log: teeLogs(stderrLog, this.#log) }),
      ...defined({ metrics: host?.metrics }),
      // The flow stops each session with its gate's verdict: that is the outcome on record.
      onReleased: releaseRecorder({
        home: this.#home,
        verdict: 'stop',
        ...defined({ metrics: host?.metrics }),
      }),
    });
    host?.serviceCreated?.(service);
    return { driver, sessions: service, close: () => service.close() };
  }
}
