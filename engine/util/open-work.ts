/**
 * Work that must finish before the process does (a run being driven). If the process reaches
 * its end anyway — its event loop emptied while a command still awaited a promise nothing can
 * resolve — the CLI's end guard calls {@link abandonOpenWork}, and each piece records, with
 * synchronous writes only, that it was abandoned and why. No path can then end a run silently.
 */
export interface OpenWork {
  /** `run 20260101-…`: what is left open, for the message. */
  readonly what: string;
  /** Records the cause durably, synchronously (the process exits right after). */
  abandon(cause: string): void;
}

const open = new Set<OpenWork>();

/** Registers open work; the returned function closes it (idempotent). */
export function openWork(work: OpenWork): () => void {
  open.add(work);
  return () => void open.delete(work);
}

/** Abandons every open piece of work with `cause`; returns what was open. */
export function abandonOpenWork(cause: string): string[] {
  const abandoned: string[] = [];
  for (const work of [...open]) {
    open.delete(work);
    try {
      work.abandon(cause);
    } catch {
      // Best effort: the message still names it.
    }
    abandoned.push(work.what);
  }
  return abandoned;
}
