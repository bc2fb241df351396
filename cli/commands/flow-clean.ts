import { cleanRuns, type CleanItem } from '../../engine/flow/index.js';
import { durationMs } from '../../engine/util/duration.js';
import { formatBytes } from '../../engine/util/disk-use.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';

const STATUSES = ['succeeded', 'failed', 'interrupted', 'running', 'waiting'];

/** `neo flow clean [runIds…]`: remove finished runs' worktrees, branches and folders. */
export async function run(
  io: CommandIO,
  runIds: string[],
  options: { olderThan?: string; status?: string[]; force?: boolean; dryRun?: boolean; json?: boolean },
): Promise<number> {
  const statuses = (options.status ?? []).flatMap((s) => s.split(',')).filter((s) => s !== '');
  const unknown = statuses.find((s) => !STATUSES.includes(s));
  if (unknown !== undefined)
    throw new UsageError('CLI_BAD_STATUS', `\`${unknown}\` is not a run status`, {
      hint: `use one of ${STATUSES.join(', ')}`,
    });
  const items = await cleanRuns(neoHome(io.env), {
    runIds,
    statuses,
    ...(options.olderThan === undefined ? {} : { olderThanMs: age(options.olderThan) }),
    ...(options.force ? { force: true } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
  });
  const removed = items.filter((item) => item.kept === undefined);
  const kept = items.filter((item) => item.kept !== undefined);
  if (options.json) {
    writeJson(io.stdout, { dryRun: options.dryRun === true, removed, kept });
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  const verb = options.dryRun ? 'would remove' : 'removed';
  for (const item of removed) writeLine(io.stdout, `${verb} ${describe(item)}`);
  for (const item of kept)
    writeLine(
      io.stdout,
      p.dim(
        `kept ${describe(item)}: ${terminalSafe(item.kept!.reason)}${item.kept!.force ? ' (--force removes it)' : ''}`,
      ),
    );
  const bytes = removed.reduce((sum, item) => sum + item.bytes, 0);
  writeLine(
    io.stdout,
    items.length === 0
      ? 'no run matches: nothing to clean'
      : `${verb} ${removed.length} run${removed.length === 1 ? '' : 's'} (${formatBytes(bytes)}), kept ${kept.length}${options.dryRun ? '; run without --dry-run to remove them' : ''}`,
  );
  return EXIT.ok;
}

function describe(item: CleanItem): string {
  const head = `${item.runId} ${terminalSafe(item.flow)} ${item.status}`;
  if (item.kept !== undefined) return `${head} (${formatBytes(item.bytes)})`;
  const what = [
    item.removes.workspace.length > 0 ? 'workspace' : undefined,
    item.removes.branch === undefined ? undefined : `branch ${item.removes.branch}`,
    item.removes.runs.length > 1 ? `${item.removes.runs.length - 1} sub-flow run(s)` : undefined,
  ].filter((part) => part !== undefined);
  return `${head} (${formatBytes(item.bytes)}${what.length > 0 ? `: ${what.join(', ')}` : ''})`;
}

/** `7d`, `12h`, `30m`, `45s`: how old a run must be (days are 24 hours). */
function age(text: string): number {
  const days = /^([0-9]+(?:\.[0-9]+)?)d$/.exec(text);
  const ms = days === null ? durationMs(text) : Number(days[1]) * 86_400_000;
  if (!Number.isFinite(ms))
    throw new UsageError('CLI_BAD_DURATION', `\`${text}\` is not an age`, {
      hint: 'write it like 7d, 12h, 30m or 45s',
    });
  return ms;
}
