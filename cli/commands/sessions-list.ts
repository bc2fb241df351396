import { CodeSessionStore, isOrphaned, stderrLog } from '../../engine/session/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { painter, table, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { firstLine } from '../session/format.js';

export async function run(io: CommandIO, options: { json?: boolean }): Promise<number> {
  // A session whose host died still says `running` until the next daemon sweeps it: call it what it is.
  const records = (await new CodeSessionStore(neoHome(io.env), { log: stderrLog }).list()).map((r) =>
    isOrphaned(r) ? { ...r, status: 'orphaned' as const } : r,
  );
  if (options.json) {
    writeJson(io.stdout, records);
    return EXIT.ok;
  }
  if (records.length === 0) {
    writeLine(io.stdout, 'no code sessions yet (start one with `neo session start`)');
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  const rows = records.map((r) => [
    r.sessionId.slice(0, 12),
    r.status,
    r.backendId,
    `${r.roundsElapsed}${r.maxRounds !== undefined ? `/${r.maxRounds}` : ''}`,
    r.costUsd !== undefined ? `$${r.costUsd.toFixed(2)}` : '-',
    r.createdAt.slice(0, 19).replace('T', ' '),
    firstLine(terminalSafe(r.taskBrief)).slice(0, 50),
  ]);
  writeLine(
    io.stdout,
    table([['ID', 'STATUS', 'BACKEND', 'ROUNDS', 'COST', 'CREATED', 'BRIEF'].map((h) => p.dim(h)), ...rows]),
  );
  return EXIT.ok;
}
