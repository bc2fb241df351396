import { describeProcess } from '../../engine/execution/index.js';
import { CodeSessionStore, isOrphaned, stderrLog } from '../../engine/session/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJsonLine, writeLine, type CommandIO } from '../io.js';
import { resolveSessionId } from '../session/client.js';
import { renderEvent } from '../session/format.js';
import { seq } from './sessions-show.js';

/** How often the store is polled for new lines. */
const POLL_MS = 200;

/**
 * Follows a session's events.jsonl from the store (never the daemon): prints what is there, then
 * each new line, and returns once the session's `released` event is printed, or — within one
 * poll — once nothing new arrives and the session is an orphan: the process hosting it (the
 * daemon) died, so nothing will ever be written again. That exits 1 and says so.
 */
export async function run(io: CommandIO, id: string, options: { after?: string; json?: boolean }): Promise<number> {
  const store = new CodeSessionStore(neoHome(io.env), { log: stderrLog });
  const sessionId = await resolveSessionId(io, id);
  if ((await store.get(sessionId)) === null)
    throw new UsageError('SESSION_NOT_FOUND', `no code session \`${sessionId}\``, { hint: 'see `neo sessions list`' });
  const p = painter(useColor(io.stdout, io.env));
  let after = options.after === undefined ? 0 : seq(options.after);
  for (;;) {
    const events = (await store.readEvents(sessionId, { afterSeq: after })) ?? [];
    for (const event of events) {
      if (options.json) writeJsonLine(io.stdout, event);
      else writeLine(io.stdout, renderEvent(event, p));
      after = event.seq;
      if (event.event.type === 'released') return EXIT.ok;
    }
    if (events.length === 0) {
      const record = await store.get(sessionId);
      if (record !== null && isOrphaned(record)) {
        const host = record.runs.at(-1)?.host;
        writeLine(
          io.stderr,
          `session ${sessionId} is an orphan: the process that hosted it${host === undefined ? '' : ` (${describeProcess(host)})`} died while the session was live`,
        );
        return EXIT.failed;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
