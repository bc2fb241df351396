import { readdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { findRepoRoot, modelineRef } from '../../engine/definitions/index.js';
import { pathExists } from '../../engine/util/path-exists.js';
import { checkScriptText, renderScriptYaml, scriptFromEvents } from '../../engine/transports/script/index.js';
import { readJsonOrNull } from '../../engine/util/atomic-file.js';
import { FailureError, UsageError } from '../../engine/util/errors.js';
import { readJsonl } from '../../engine/util/jsonl.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeLine, type CommandIO } from '../io.js';
import { checkIdOrPrefix, isId } from '../../engine/util/ids.js';

/** What from-session reads from meta.json, when it is there. */
interface MetaView {
  sessionId?: string;
  backendId?: string;
  cwd?: string;
  model?: string;
  taskBrief?: string;
  createdAt?: string;
}

export async function run(
  io: CommandIO,
  session: string,
  options: { output?: string; force?: boolean },
): Promise<number> {
  const eventsFile = await locateEvents(io, session);
  const { records, badLines } = await readJsonl(eventsFile);
  for (const line of badLines)
    writeLine(io.stderr, `note: ${eventsFile}:${line} does not parse (a torn last line after a crash?); skipped`);
  if (records.length === 0)
    throw new FailureError('CLI_SESSION_EMPTY', `${eventsFile} holds no events`, {
      hint: 'a session records events once its transport starts',
    });
  const events = records.map((record) =>
    typeof record === 'object' && record !== null && 'event' in record ? (record as { event: unknown }).event : record,
  );
  const meta = (await readJsonOrNull<MetaView>(join(dirname(eventsFile), 'meta.json'))) ?? {};
  const id = meta.sessionId ?? session;
  const origin = [id, meta.backendId, meta.createdAt]
    .filter((part) => typeof part === 'string' && part !== '')
    .join(' · ');
  const converted = scriptFromEvents(events, {
    ...(typeof meta.cwd === 'string' ? { cwd: meta.cwd } : {}),
    description: `Replays recorded session ${origin}.`,
  });
  if (converted.script.model === undefined && typeof meta.model === 'string') converted.script.model = meta.model;
  const output = options.output === undefined ? undefined : resolve(io.cwd, options.output);
  const prompts = converted.prompts.map((prompt, i) =>
    i === 0 && prompt === undefined && typeof meta.taskBrief === 'string' ? meta.taskBrief : prompt,
  );
  const text = renderScriptYaml(converted.script, {
    schema: modelineRef(output ?? join(io.cwd, 'script.yaml'), 'script.schema.json', findRepoRoot(io.cwd)),
    turnComments: prompts,
    header: ['Made by `neo script from-session`. Review it before replaying: its commands run as written.'],
  });
  // What we print must be a script the backend accepts; anything else is a bug here.
  const check = checkScriptText(text, output ?? '<output>');
  if (check.plan === undefined)
    throw new Error(`from-session produced an invalid script: ${check.diagnostics.map((d) => d.message).join('; ')}`);
  for (const note of converted.notes) writeLine(io.stderr, `note: ${note}`);
  if (output === undefined) {
    io.stdout.write(text);
    return EXIT.ok;
  }
  if (!options.force && (await pathExists(output))) {
    throw new UsageError('CLI_OUTPUT_EXISTS', `${relative(io.cwd, output) || output} already exists`, {
      hint: 'pass --force to overwrite it',
    });
  }
  await writeFile(output, text);
  const turns = check.plan.turns.length;
  writeLine(
    io.stdout,
    `wrote ${relative(io.cwd, output) || output}: ${turns} turn${turns === 1 ? '' : 's'} from ${events.length} events`,
  );
  return EXIT.ok;
}

/** An events.jsonl path as given, or the session's file under NEO_HOME (an id or a unique prefix). */
async function locateEvents(io: CommandIO, session: string): Promise<string> {
  if (session.endsWith('.jsonl') || session.includes('/')) {
    const file = resolve(io.cwd, session);
    if (!(await pathExists(file))) throw new UsageError('CLI_SESSION_NOT_FOUND', `no events file at ${file}`);
    return file;
  }
  checkIdOrPrefix('session', session);
  const root = join(neoHome(io.env), 'code-sessions');
  if (isId('session', session) && (await pathExists(join(root, session, 'events.jsonl'))))
    return join(root, session, 'events.jsonl');
  const ids = (await readdir(root).catch(() => [] as string[])).filter(
    (name) => isId('session', name) && name.startsWith(session),
  );
  if (ids.length === 1) return join(root, ids[0]!, 'events.jsonl');
  if (ids.length > 1) {
    throw new UsageError('CLI_SESSION_AMBIGUOUS', `${session} matches ${ids.length} sessions`, {
      hint: `give more of the id: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`,
    });
  }
  throw new UsageError('CLI_SESSION_NOT_FOUND', `no recorded session ${session} under ${root}`, {
    hint: 'list sessions with `neo sessions list`, or pass the path of an events.jsonl file',
  });
}

/** Relative when the schema sits near the output (a local install), absolute otherwise. */
