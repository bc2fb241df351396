/**
 * The event hub behind `GET /api/events`: every published event gets the next hub id and stays
 * in a bounded ring, so a client that reconnects with `Last-Event-ID` is replayed exactly what
 * it missed, in order — or told to reload when it missed more than the ring holds.
 */
import { randomBytes } from 'node:crypto';
import { processRedact, redactDeep } from '../util/redact.js';

export const TOPICS = [
  'code_session_event',
  'code_session_changed',
  'flow_run_event',
  'approval_requested',
  'capability_updates',
] as const;
export type Topic = (typeof TOPICS)[number];

export interface HubEvent {
  /** `<epoch>-<n>`: n counts from 1 per server start; the epoch tells this server's ids from another's. */
  id: string;
  n: number;
  topic: Topic;
  data: unknown;
}

export class EventHub {
  readonly epoch = randomBytes(3).toString('hex');
  readonly #capacity: number;
  readonly #ring: HubEvent[] = [];
  readonly #subscribers = new Set<(event: HubEvent) => void>();
  #next = 1;

  constructor(options: { capacity?: number } = {}) {
    this.#capacity = options.capacity ?? 20_000;
  }

  publish(topic: Topic, data: unknown): HubEvent {
    const n = this.#next++;
    // What the web UI receives passes the one redactor, whoever sent it.
    const event: HubEvent = { id: `${this.epoch}-${n}`, n, topic, data: redactDeep(data, processRedact()) };
    this.#ring.push(event);
    if (this.#ring.length > this.#capacity) this.#ring.splice(0, this.#ring.length - this.#capacity);
    for (const subscriber of this.#subscribers) {
      try {
        subscriber(event);
      } catch {
        // One broken subscriber must not starve the others.
      }
    }
    return event;
  }

  subscribe(subscriber: (event: HubEvent) => void): () => void {
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  /**
   * The events after `lastEventId`, oldest first; undefined when they can no longer all be
   * given (an id from another server start, or older than the ring).
   */
  since(lastEventId: string): HubEvent[] | undefined {
    const match = /^([0-9a-f]+)-(\d+)$/.exec(lastEventId);
    if (match === null || match[1] !== this.epoch) return undefined;
    const n = Number(match[2]);
    if (n >= this.#next) return undefined;
    const oldest = this.#ring[0]?.n ?? this.#next;
    if (n + 1 < oldest) return undefined;
    return this.#ring.slice(Math.max(0, n + 1 - oldest));
  }

  /** How many subscribers are connected (for status and tests). */
  get subscribers(): number {
    return this.#subscribers.size;
  }
}
