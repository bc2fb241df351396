/**
 * Work that must finish before the process does (a run being driven). If the process reaches
 * its end anyway — its event loop emptied while a command still awaited a promise nothing can
 * resolve, or a second Ctrl-C kills it at once — {@link abandonOpenWork} has each piece record,
 * with synchronous writes only, how it ended and why. No path can then end a run silently.
 */

/** How abandoned work is recorded: `failed` (a bug ended it) or `interrupted` (a person did; resumable). */
export type AbandonedAs = 'failed' | 'interrupted';

export interface OpenWork {
  /** `run 20260101-…`: what is left open, for the message. */
  readonly what: string;
  /** Records the cause durably, synchronously (the process exits right after). */
  abandon(cause: string, as: AbandonedAs): void;
}

const open = new Set<OpenWork>();

/** Registers open work; the returned function closes it (idempotent). */
export function openWork(work: OpenWork): () => void {
  open.add(work);
  return () => void open.delete(work);
}

/** Abandons every open piece of work with `cause`; returns what was open. */
export function abandonOpenWork(cause: string, as: AbandonedAs = 'failed'): string[] {
  const abandoned: string[] = [];
  for (const work of [...open]) {
    open.delete(work);
    try {
      work.abandon(cause, as);
    } catch {
      // Best effort: the message still names it.
    }
    abandoned.push(work.what);
  }
  return abandoned;
}
