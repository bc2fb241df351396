import { join } from 'node:path';
import { loadDefinitions } from '../../engine/definitions/index.js';
import { agentDistil, runDistillPass, scopeLabel } from '../../engine/learning/index.js';
import { JsonLinesLog } from '../../engine/observability/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';
import { defined } from '../../engine/util/defined.js';

/**
 * `neo learn distill`: one pass of the lessons distiller with neo's own agent (the cheap model
 * class). Its decisions (each dropped answer, each eviction) go to
 * NEO_HOME/learning/distill-log.jsonl.
 */
export async function run(
  io: CommandIO,
  options: { since?: string; dryRun?: boolean; json?: boolean },
): Promise<number> {
  const home = neoHome(io.env);
  const since = options.since === undefined ? undefined : parseSince(options.since, Date.now());
  const { set } = await loadDefinitions({ cwd: io.cwd, home });
  const log = new JsonLinesLog(join(home, 'learning', 'distill-log.jsonl'));
  try {
    const report = await runDistillPass({
      home,
      backends: set.ids('backend'),
      distil: agentDistil({ home, cwd: io.cwd, env: io.env }),
      ...defined({ since }),
      ...(options.dryRun ? { dryRun: true } : {}),
      log: (level, event, fields) => log.write(level, event, fields),
    });
    if (options.json) {
      writeJson(io.stdout, report);
      return EXIT.ok;
    }
    writeLine(
      io.stdout,
      `${report.outcomes} new outcome${report.outcomes === 1 ? '' : 's'}; ${report.added} lesson${report.added === 1 ? '' : 's'} added, ${report.reinforced} reinforced, ${report.dropped.length} dropped, ${report.evicted.length} evicted; ${report.lessons.length} kept${options.dryRun ? ' (dry run: nothing written)' : ''}`,
    );
    for (const drop of report.dropped)
      writeLine(io.stderr, `neo: dropped a proposed lesson: ${terminalSafe(drop.reason)}`);
    if (options.dryRun)
      for (const l of report.lessons)
        writeLine(
          io.stdout,
          `  ${l.confidence.toFixed(2)}  ×${l.evidenceCount}  [${scopeLabel(l.scope)}] ${terminalSafe(l.text)}`,
        );
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

/** An ISO date, or a duration back from now (`7d`, `12h`, `2w`). */
export function parseSince(value: string, now: number): number {
  const match = /^(\d+)([mhdw])$/.exec(value);
  if (match) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 'm' | 'h' | 'd' | 'w'];
    return now - Number(match[1]) * unit;
  }
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new UsageError('CLI_BAD_SINCE', `--since ${value} is neither a date nor a duration`, {
      hint: 'give an ISO date (2026-11-01) or a duration back from now (7d, 12h, 2w)',
    });
  return at;
}
