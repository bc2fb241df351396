import { join, resolve } from 'node:path';
import { hasErrors, loadDefinitions, summarizeDiagnostics } from '../../engine/definitions/index.js';
import { trackRecords } from '../../engine/learning/index.js';
import { JsonLinesLog } from '../../engine/observability/index.js';
import { isPosture, type Posture } from '../../engine/posture/index.js';
import { attachToServer } from '../../engine/server/index.js';
import { CodeSessionStore, createSessionService, silentLog } from '../../engine/session/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { painter, useColor, writeLine, type CommandIO } from '../io.js';
import { SessionLink, type ChatStart } from '../chat/session-link.js';
import { ChatTerminal } from '../chat/terminal.js';
import { resolveSessionId } from '../session/client.js';

interface Options {
  resume?: string;
  posture?: string;
  model?: string;
  backend?: string;
  maxRounds?: string;
}

/** The backend a new chat talks to: neo's own agent. */
const CHAT_BACKEND = 'neo';

/**
 * `neo chat [--resume id]`: an interactive session with neo's own agent in the current
 * repository. The session runs in this process (it lives exactly as long as the chat) on the
 * same session service, ceilings and store as every other session; a running `neo serve` sees it.
 */
export async function run(io: CommandIO, options: Options): Promise<number> {
  const home = neoHome(io.env);
  const posture = options.posture === undefined ? undefined : postureFlag(options.posture);
  const start: ChatStart = { cwd: resolve(io.cwd), backend: options.backend ?? CHAT_BACKEND };
  if (posture !== undefined) start.posture = posture;
  if (options.model !== undefined) start.model = options.model;
  if (options.maxRounds !== undefined) start.maxRounds = wholeNumber('--max-rounds', options.maxRounds);
  let resumedFrom: string | undefined;
  if (options.resume !== undefined) {
    resumedFrom = await resolveSessionId(io, options.resume);
    Object.assign(start, await resumeTarget(home, resumedFrom, options.backend));
  }

  const loaded = await loadDefinitions({ cwd: start.cwd, home });
  if (hasErrors(loaded.diagnostics))
    writeLine(
      io.stderr,
      `note: definitions have problems (${summarizeDiagnostics(loaded.diagnostics)}); run \`neo validate\` to see them`,
    );
  loaded.set.assertOwnerPolicy();
  if (loaded.set.get('backend', start.backend!) === undefined)
    throw new UsageError('CLI_UNKNOWN_BACKEND', `unknown backend \`${start.backend}\``, {
      hint: `known backends: ${loaded.set.ids('backend').join(', ')}`,
    });
  // The service's decisions go to a log file: the terminal is the conversation's.
  const log = new JsonLinesLog(join(home, 'logs', `chat-${Date.now().toString(36)}.jsonl`));
  const records = trackRecords(home);
  const service = createSessionService({
    home,
    definitions: loaded.set,
    defaultCwd: start.cwd,
    log,
    trackRecord: (backend) => records.lines(backend),
  });
  const attachment = await attachToServer(home, 'neo chat').catch(() => undefined);
  attachment?.bindSessions(service);
  try {
    const terminal = new ChatTerminal({
      io,
      input: process.stdin,
      link: new SessionLink(service, io.env),
      start,
      ...(resumedFrom === undefined ? {} : { resumedFrom }),
      p: painter(useColor(io.stdout, io.env)),
    });
    return await terminal.run();
  } finally {
    await service.close();
    await attachment?.close();
    await log.close();
  }
}

/**
 * A resumed chat continues the recorded session's backend session, in the folder it ran in
 * (seed 000: a resumed chat restores its saved working directory).
 */
async function resumeTarget(home: string, sessionId: string, backend: string | undefined): Promise<Partial<ChatStart>> {
  const record = await new CodeSessionStore(home, { log: silentLog }).get(sessionId);
  if (record === null)
    throw new UsageError('SESSION_NOT_FOUND', `no code session \`${sessionId}\``, { hint: 'see `neo sessions list`' });
  const external = record.runs.at(-1)?.externalSessionId;
  if (external === undefined)
    throw new UsageError(
      'CHAT_NOTHING_TO_RESUME',
      `session ${sessionId} never started its agent, so there is nothing to resume`,
      {
        hint: 'start a new chat with `neo chat`',
      },
    );
  if (backend !== undefined && backend !== record.backendId)
    throw new UsageError(
      'CHAT_RESUME_BACKEND',
      `session ${sessionId} ran on \`${record.backendId}\`, not \`${backend}\``,
      {
        hint: 'leave out --backend when resuming: a session continues on its own backend',
      },
    );
  return { backend: record.backendId, cwd: record.cwd, resumeSessionId: external };
}

function postureFlag(value: string): Posture {
  if (!isPosture(value))
    throw new UsageError(
      'CLI_BAD_OPTION',
      `--posture expects plan, default, acceptEdits or full, got ${JSON.stringify(value)}`,
    );
  return value;
}

function wholeNumber(flag: string, value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < 1)
    throw new UsageError(
      'CLI_BAD_OPTION',
      `${flag} expects a whole number of at least 1, got ${JSON.stringify(value)}`,
    );
  return Number(value);
}
