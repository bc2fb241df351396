import { resumeRun } from '../../engine/flow/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import type { CommandIO } from '../io.js';
import { flowOutput } from './flow-output.js';
import { terminalPrompter } from './flow-prompt.js';
import { interruptOnSignals } from './flow-signals.js';
import { exitCodeOf, printSummary } from './flow-summary.js';

export async function run(
  io: CommandIO,
  runId: string,
  options: { rerun?: string[]; rebaseDefinitions?: boolean; yes?: boolean; json?: boolean },
): Promise<number> {
  const output = flowOutput(io, { json: options.json === true });
  const interactive = options.json !== true && io.stdout.isTTY === true && process.stdin.isTTY === true;
  const { signal, dispose } = interruptOnSignals(io);
  try {
    const outcome = await resumeRun({
      home: neoHome(io.env),
      cwd: io.cwd,
      runId,
      rerun: options.rerun ?? [],
      observer: output.observer,
      signal,
      ...(interactive ? { prompter: terminalPrompter(io, output) } : {}),
      ...(options.rebaseDefinitions ? { rebaseDefinitions: true } : {}),
      ...(options.yes ? { yes: true } : {}),
    });
    output.close();
    printSummary(io, outcome, output.view, { json: options.json === true });
    return exitCodeOf(outcome);
  } finally {
    output.close();
    dispose();
  }
}
