import type { AgentEvent, AgentSession } from '../../engine/transports/index.js';

/**
 * Reads a session's events in order for assertions. Every wait is on an event, never on time;
 * a stream that ends before the awaited event fails the test with what it did see.
 */
export class EventReader {
  readonly seen: AgentEvent[] = [];
  readonly #iterator: AsyncIterator<AgentEvent>;
  #done = false;

  constructor(session: AgentSession) {
    this.#iterator = session.events[Symbol.asyncIterator]();
  }

  get done(): boolean {
    return this.#done;
  }

  /** The next event, or undefined at the end of the stream. */
  async next(): Promise<AgentEvent | undefined> {
    if (this.#done) return undefined;
    const result = await this.#iterator.next();
    if (result.done === true) {
      this.#done = true;
      return undefined;
    }
    this.seen.push(result.value);
    return result.value;
  }

  /** Reads until `predicate` matches; returns every event read (the match last). */
  async until(predicate: (event: AgentEvent) => boolean, what = 'the awaited event'): Promise<AgentEvent[]> {
    const batch: AgentEvent[] = [];
    for (;;) {
      const event = await this.next();
      if (event === undefined) throw new Error(`stream ended before ${what}; saw: ${describe(this.seen)}`);
      batch.push(event);
      if (predicate(event)) return batch;
    }
  }

  /** Reads until an event of `type`; returns the batch. */
  untilType<T extends AgentEvent['type']>(type: T): Promise<AgentEvent[]> {
    return this.until((event) => event.type === type, `a ${type} event`);
  }

  /** Reads to the end of the stream. */
  async rest(): Promise<AgentEvent[]> {
    const batch: AgentEvent[] = [];
    for (let event = await this.next(); event !== undefined; event = await this.next()) batch.push(event);
    return batch;
  }
}

/**
 * Event types, with error codes spelled out: `error:TRANSPORT_EXITED`. Spending reports (`usage`)
 * come whenever a backend reports them and are checked on their own, not in the order of a turn.
 */
export function kinds(events: readonly AgentEvent[]): string[] {
  return events
    .filter((event) => event.type !== 'usage')
    .map((event) => (event.type === 'error' && event.code !== undefined ? `error:${event.code}` : event.type));
}

/** The last event of a given type in a batch. */
export function lastOf<T extends AgentEvent['type']>(
  events: readonly AgentEvent[],
  type: T,
): Extract<AgentEvent, { type: T }> {
  const found = [...events].reverse().find((event) => event.type === type);
  if (found === undefined) throw new Error(`no ${type} event in: ${describe(events)}`);
  return found as Extract<AgentEvent, { type: T }>;
}

function describe(events: readonly AgentEvent[]): string {
  return kinds(events).join(', ') || '(nothing)';
}
