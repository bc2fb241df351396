/**
 * The chat's one line to its session: every action is an op of the session contract (start,
 * guide, read-turn, answer, set-posture, interrupt, stop, and the optional ops a backend may
 * offer), run on an in-process session service, so the chat holds the same ceilings, records and
 * store as `neo session …` and a flow step. Live events come from the service's event seam.
 */
import type { Posture } from '../../engine/posture/index.js';
import {
  isLiveState,
  type CodeSessionInput,
  type CodeSessionOutputs,
  type ReadTurnResult,
  type SessionLiveEvent,
  type SessionService,
  type StartInput,
  type StartResult,
} from '../../engine/session/index.js';
import { CLI_SCOPE } from '../session/client.js';

/** What the chat asks of a start besides the brief. */
export interface ChatStart {
  cwd: string;
  backend?: string;
  posture?: Posture;
  model?: string;
  maxRounds?: number;
  /** The backend's own session id to continue (a resumed chat). */
  resumeSessionId?: string;
}

export class SessionLink {
  readonly #service: SessionService;
  readonly #env: NodeJS.ProcessEnv;
  #started: StartResult | undefined;

  constructor(service: SessionService, env: NodeJS.ProcessEnv) {
    this.#service = service;
    this.#env = env;
  }

  get sessionId(): string | undefined {
    return this.#started?.sessionId;
  }

  get started(): StartResult | undefined {
    return this.#started;
  }

  async start(brief: string, options: ChatStart): Promise<StartResult> {
    const input: StartInput = { op: 'start', brief, cwd: options.cwd };
    if (options.backend !== undefined) input.backend = options.backend;
    if (options.posture !== undefined) input.initialPosture = options.posture;
    if (options.model !== undefined) input.agentModel = options.model;
    if (options.maxRounds !== undefined) input.maxRounds = options.maxRounds;
    if (options.resumeSessionId !== undefined) input.resumeSessionId = options.resumeSessionId;
    this.#started = await this.#op(input, { env: this.#env });
    return this.#started;
  }

  /** Guidance: mid-turn it steers the running turn (backends that allow it), at rest it starts the next. */
  guide(text: string): Promise<unknown> {
    return this.#op({ op: 'guide', sessionId: this.#id(), text });
  }

  readTurn(signal: AbortSignal): Promise<ReadTurnResult> {
    return this.#op({ op: 'read-turn', sessionId: this.#id() }, { signal });
  }

  answer(clarificationId: string, allow: boolean, reason?: string): Promise<unknown> {
    return this.#op({
      op: 'answer',
      sessionId: this.#id(),
      clarificationId,
      allow,
      ...(reason === undefined ? {} : { reason }),
    });
  }

  setPosture(posture: Posture): Promise<unknown> {
    return this.#op({ op: 'set-posture', sessionId: this.#id(), posture });
  }

  interrupt(): Promise<unknown> {
    return this.#op({ op: 'interrupt', sessionId: this.#id() });
  }

  stop(): Promise<unknown> {
    return this.#op({ op: 'stop', sessionId: this.#id() });
  }

  /** An op this chat knows only by name (undo, reset, …): its input and result are the op's own. */
  optional(op: string, fields: Record<string, unknown>): Promise<unknown> {
    return this.#service.execute({ op, ...fields }, { scope: CLI_SCOPE });
  }

  /** Whether the session can still take a message (not ended, failed, capped or released). */
  isLive(): boolean {
    const live = this.#live();
    return live !== undefined && !live.closed && isLiveState(live.state);
  }

  /** The posture, the ceiling and what the backend can express, while the session is live. */
  postures(): { posture: Posture; ceiling: Posture; expressible: Posture[] } | undefined {
    const live = this.#live();
    if (live === undefined) return undefined;
    const { posture, maxPosture } = live.snapshot.context;
    return { posture, ceiling: maxPosture, expressible: Object.keys(live.descriptor.postureMap ?? {}) as Posture[] };
  }

  /** When typed text reaches a running turn: now (mid-turn), at its end (next-turn), or never. */
  steering(): 'mid-turn' | 'next-turn' | 'none' {
    return this.#live()?.descriptor.liveControl?.guidance ?? 'next-turn';
  }

  state(): string | undefined {
    return this.#live()?.state;
  }

  /** The backend's own id of this session (what a later start resumes), from the store. */
  async externalId(): Promise<string | undefined> {
    const id = this.sessionId;
    if (id === undefined) return undefined;
    const record = await this.#service.store.get(id);
    return record?.runs.at(-1)?.externalSessionId;
  }

  /**
   * The chat's live events, as the registry writes them. Every session of this service is the
   * chat's own, and a fast first turn can report before start() has returned its id, so none is
   * filtered out by id.
   */
  onEvent(listener: (event: SessionLiveEvent) => void): () => void {
    return this.#service.onSessionEvent(listener);
  }

  #live() {
    const id = this.sessionId;
    return id === undefined ? undefined : this.#service.registry.find(id);
  }

  #id(): string {
    const id = this.sessionId;
    if (id === undefined) throw new Error('the chat has no session yet');
    return id;
  }

  #op<I extends CodeSessionInput>(
    input: I,
    options: { signal?: AbortSignal; env?: NodeJS.ProcessEnv } = {},
  ): Promise<CodeSessionOutputs[I['op']]> {
    return this.#service.execute(input, { scope: CLI_SCOPE }, options);
  }
}
