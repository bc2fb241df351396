/**
 * `neo session undo|reset|checklist|list`: the ops on neo's own agent's state, and the recorded
 * sessions of a working directory to continue (`neo session start --resume <id>`).
 */
import { resolve } from 'node:path';
import { renderChecklist } from '../../engine/agent/index.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { UsageError } from '../../engine/util/errors.js';
import { EXIT } from '../exit-codes.js';
import { painter, table, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { resolveSessionId, sessionOp } from '../session/client.js';
import { firstLine } from '../session/format.js';

type JsonOption = { json?: boolean };

export const sessionUndo = {
  async run(io: CommandIO, id: string, options: JsonOption): Promise<number> {
    const result = await sessionOp(io, { op: 'undo', sessionId: await resolveSessionId(io, id) });
    if (options.json) writeJson(io.stdout, result);
    else writeLine(io.stdout, `undid turn ${result.turn}: restored ${result.restored.map(terminalSafe).join(', ')}`);
    return EXIT.ok;
  },
};

export const sessionReset = {
  async run(io: CommandIO, id: string, options: JsonOption): Promise<number> {
    const result = await sessionOp(io, { op: 'reset', sessionId: await resolveSessionId(io, id) });
    if (options.json) writeJson(io.stdout, result);
    else writeLine(io.stdout, 'cleared the conversation; the next guidance starts afresh');
    return EXIT.ok;
  },
};

export const sessionChecklist = {
  async run(io: CommandIO, id: string, options: JsonOption): Promise<number> {
    const result = await sessionOp(io, { op: 'checklist', sessionId: await resolveSessionId(io, id) });
    if (options.json) writeJson(io.stdout, result);
    else writeLine(io.stdout, terminalSafe(renderChecklist(result.items)));
    return EXIT.ok;
  },
};

export const sessionList = {
  async run(
    io: CommandIO,
    options: { cwd?: string; backend?: string; limit?: string; json?: boolean },
  ): Promise<number> {
    if (options.limit !== undefined && !/^[1-9][0-9]*$/.test(options.limit))
      throw new UsageError(
        'CLI_BAD_OPTION',
        `--limit expects a whole number ≥ 1, got ${JSON.stringify(options.limit)}`,
      );
    const cwd = resolve(io.cwd, options.cwd ?? '.');
    const result = await sessionOp(io, {
      op: 'list-sessions',
      cwd,
      ...(options.backend !== undefined ? { backend: options.backend } : {}),
      ...(options.limit !== undefined ? { limit: Number(options.limit) } : {}),
    });
    if (options.json) {
      writeJson(io.stdout, result);
      return EXIT.ok;
    }
    if (result.sessions.length === 0) {
      writeLine(io.stdout, `no sessions recorded for ${terminalSafe(cwd)}`);
      return EXIT.ok;
    }
    const p = painter(useColor(io.stdout, io.env));
    const rows = result.sessions.map((s) => [
      s.sessionId.slice(0, 12),
      s.live ? 'live' : s.status,
      s.backend,
      String(s.rounds),
      s.updatedAt.slice(0, 19).replace('T', ' '),
      s.resumeSessionId ?? '-',
      firstLine(terminalSafe(s.brief)).slice(0, 50),
    ]);
    writeLine(
      io.stdout,
      table([['ID', 'STATE', 'BACKEND', 'ROUNDS', 'UPDATED', 'RESUME', 'BRIEF'].map((h) => p.dim(h)), ...rows]),
    );
    return EXIT.ok;
  },
};
