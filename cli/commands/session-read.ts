import { CodeSessionStore, silentLog } from '../../engine/session/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { resolveSessionId, sessionOp } from '../session/client.js';
import { renderReadTurn } from '../session/format.js';

/** How often the store is polled for notices while the read waits. */
const NOTICE_POLL_MS = 250;
/** Events that close a turn, or an ask the previous read returned: notices after them are news. */
const TURN_BOUNDARIES = new Set(['turn_diff', 'clarification']);

export async function run(io: CommandIO, id: string, options: { diff?: boolean; json?: boolean }): Promise<number> {
  const sessionId = await resolveSessionId(io, id);
  const stopNotices = await followNotices(io, sessionId);
  let result;
  try {
    result = await sessionOp(io, { op: 'read-turn', sessionId, ...(options.diff ? { includeDiff: true } : {}) });
  } finally {
    await stopNotices();
  }
  if (options.json) writeJson(io.stdout, result);
  else for (const line of renderReadTurn(result, painter(useColor(io.stdout, io.env)))) writeLine(io.stdout, line);
  return EXIT.ok;
}

/**
 * While the read waits for the turn to end, the backend's notices (the CLI retrying a failed
 * model request, a denied ask) are printed on stderr as the session records them, from the
 * start of the current turn, so a turn that takes minutes of retries is not silence.
 */
async function followNotices(io: CommandIO, sessionId: string): Promise<() => Promise<void>> {
  const store = new CodeSessionStore(neoHome(io.env), { log: silentLog });
  const p = painter(useColor(io.stderr, io.env));
  const recorded = (await store.readEvents(sessionId).catch(() => null)) ?? [];
  let after = recorded.findLast((e) => TURN_BOUNDARIES.has(e.event.type))?.seq ?? 0;
  let polling: Promise<void> = Promise.resolve();
  const poll = async () => {
    const events = (await store.readEvents(sessionId, { afterSeq: after }).catch(() => null)) ?? [];
    for (const { seq, event } of events) {
      after = seq;
      const e = event as { type: string; transient?: unknown; code?: unknown; message?: unknown };
      if (e.type === 'error' && e.transient === true)
        writeLine(
          io.stderr,
          p.yellow(terminalSafe(`notice: ${typeof e.code === 'string' ? `${e.code}: ` : ''}${String(e.message)}`)),
        );
    }
  };
  const timer = setInterval(() => {
    polling = polling.then(poll);
  }, NOTICE_POLL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await polling;
    await poll();
  };
}
