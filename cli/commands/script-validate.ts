import { relative, resolve } from 'node:path';
import { formatDiagnostics, hasErrors, summarizeDiagnostics, type Diagnostic } from '../../engine/definitions/index.js';
import { checkScriptFile, type Step } from '../../engine/transports/script/index.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';

export async function run(io: CommandIO, files: string[], options: { json?: boolean }): Promise<number> {
  const all: Diagnostic[] = [];
  const summaries: string[] = [];
  for (const file of files.map((f) => resolve(io.cwd, f))) {
    const check = await checkScriptFile(file);
    all.push(...check.diagnostics);
    if (check.plan !== undefined) {
      const actions = check.plan.turns.reduce((sum, turn) => sum + countSteps(turn.steps), 0);
      const turns = check.plan.turns.length;
      summaries.push(
        `${display(io.cwd, file)}: ${turns} turn${turns === 1 ? '' : 's'}, ${actions} action${actions === 1 ? '' : 's'}`,
      );
    }
  }
  if (options.json) {
    writeJson(io.stdout, all);
    return hasErrors(all) ? EXIT.usage : EXIT.ok;
  }
  if (all.length > 0)
    writeLine(io.stderr, `${formatDiagnostics(all, { color: useColor(io.stderr, io.env), cwd: io.cwd })}\n`);
  const p = painter(useColor(io.stdout, io.env));
  if (hasErrors(all)) {
    writeLine(io.stderr, `${p.red('✗')} ${summarizeDiagnostics(all)}`);
    return EXIT.usage;
  }
  for (const line of summaries) writeLine(io.stdout, `${p.green('✓')} ${line}`);
  if (all.length > 0) writeLine(io.stdout, summarizeDiagnostics(all));
  return EXIT.ok;
}

function countSteps(steps: readonly Step[]): number {
  return steps.reduce(
    (sum, step) => sum + 1 + (step.kind === 'ask' ? countSteps(step.onAllow) + countSteps(step.onDeny) : 0),
    0,
  );
}

/** Relative to where neo runs, unless that climbs out of it. */
function display(cwd: string, file: string): string {
  const rel = relative(cwd, file);
  return rel === '' || rel.startsWith('..') ? file : rel;
}
