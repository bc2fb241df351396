import { CodeSessionStore, stderrLog, type PersistedSessionEvent } from '../../engine/session/index.js';
import type { CodeSessionRecord } from '../../engine/session/index.js';
import { renderChecklist } from '../../engine/agent/index.js';
import type { ChecklistEntry } from '../../engine/transports/index.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { resolveSessionId } from '../session/client.js';
import { renderEvent, renderRecord } from '../session/format.js';

export interface ShowOptions {
  events?: boolean;
  after?: string;
  json?: boolean;
  engine?: string;
  databaseUrl?: string;
}

/** A session as shown: its record, its events (all: the checklist is read from them) and, on dbos, where it ran. */
export interface ShownSession {
  record: CodeSessionRecord;
  events: readonly PersistedSessionEvent[];
  dbos?: { runId: string; step: string; worker: string };
}

export async function run(io: CommandIO, id: string, options: ShowOptions): Promise<number> {
  const shown =
    options.engine === 'dbos'
      ? await (await import('../session/dbos-session.js')).dbosSession(io, id, options)
      : await localSession(io, id);
  const afterSeq = options.after === undefined ? 0 : seq(options.after);
  const wantEvents = options.events === true || options.after !== undefined;
  const events = wantEvents ? shown.events.filter((e) => e.seq > afterSeq) : undefined;
  const checklist = latestChecklist(shown.events);
  if (options.json) {
    writeJson(io.stdout, {
      record: shown.record,
      ...(shown.dbos !== undefined ? { dbos: shown.dbos } : {}),
      ...(checklist !== undefined ? { checklist } : {}),
      ...(events !== undefined ? { events } : {}),
    });
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  for (const line of renderRecord(shown.record, p)) writeLine(io.stdout, line);
  if (shown.dbos !== undefined)
    writeLine(
      io.stdout,
      p.dim(terminalSafe(`dbos run ${shown.dbos.runId} · step ${shown.dbos.step} · worker ${shown.dbos.worker}`)),
    );
  if (checklist !== undefined) {
    writeLine(io.stdout, p.dim('checklist:'));
    for (const line of renderChecklist(checklist).split('\n')) writeLine(io.stdout, `  ${terminalSafe(line)}`);
  }
  if (events !== undefined) {
    writeLine(io.stdout);
    for (const event of events) writeLine(io.stdout, renderEvent(event, p));
  }
  return EXIT.ok;
}

async function localSession(io: CommandIO, id: string): Promise<ShownSession> {
  const store = new CodeSessionStore(neoHome(io.env), { log: stderrLog });
  const sessionId = await resolveSessionId(io, id);
  const record = await store.get(sessionId);
  if (record === null)
    throw new UsageError('SESSION_NOT_FOUND', `no code session \`${sessionId}\``, { hint: 'see `neo sessions list`' });
  return { record, events: (await store.readEvents(sessionId)) ?? [] };
}

/** The agent's checklist as its last `checklist` event left it (neo's workflow tool). */
function latestChecklist(events: readonly PersistedSessionEvent[]): ChecklistEntry[] | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!.event;
    if (event.type === 'checklist') return event.items;
    if (event.type === 'reset') return [];
  }
  return undefined;
}

export function seq(value: string): number {
  if (!/^[0-9]+$/.test(value))
    throw new UsageError('CLI_BAD_OPTION', `--after expects a seq number, got ${JSON.stringify(value)}`);
  return Number(value);
}
