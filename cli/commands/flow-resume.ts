import { readRunRecord, resumeRun } from '../../engine/flow/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import type { ProcessMetrics } from '../../engine/observability/index.js';
import type { CommandIO } from '../io.js';
import { metricsPort, openMetrics } from '../metrics-port.js';
import { flowOutput } from '../flow/output.js';
import { terminalPrompter } from '../flow/prompt.js';
import { interruptOnSignals } from '../flow/signals.js';
import { attachRun } from '../serve/attach.js';
import { exitCodeOf, jsonErrors, printSummary } from '../flow/summary.js';

type ResumeFlags = {
  rerun?: string[];
  rebaseDefinitions?: boolean;
  yes?: boolean;
  json?: boolean;
  metricsPort?: string;
  engine?: string;
  databaseUrl?: string;
  detach?: boolean;
};

export function run(io: CommandIO, runId: string, options: ResumeFlags): Promise<number> {
  return jsonErrors(io, options.json === true, () =>
    options.engine === 'dbos' ? resumeOnDbos(io, runId, options) : resume(io, runId, options),
  );
}

/** A dbos run is resumed as it was enqueued: the options that change how it runs here do not apply. */
async function resumeOnDbos(io: CommandIO, runId: string, options: ResumeFlags): Promise<number> {
  const local = (
    [
      ['--rerun', (options.rerun ?? []).length > 0],
      ['--rebase-definitions', options.rebaseDefinitions === true],
      ['--yes', options.yes === true],
      ['--metrics-port', options.metricsPort !== undefined],
    ] as const
  ).find(([, given]) => given);
  if (local !== undefined)
    throw new UsageError('CLI_ENGINE_OPTION', `${local[0]} is not an option of \`neo flow resume --engine dbos\``, {
      hint: 'a dbos run resumes on a worker with the options it was enqueued with; drop the option',
    });
  return (await import('../flow/dbos-commands.js')).resumeOnDbos(io, runId, options);
}

async function resume(io: CommandIO, runId: string, options: ResumeFlags): Promise<number> {
  const port = metricsPort(options.metricsPort);
  // The id (or a unique prefix) is resolved against the store before anything opens a path.
  const record = await readRunRecord(neoHome(io.env), runId);
  const output = flowOutput(io, { json: options.json === true });
  const interactive = options.json !== true && io.stdout.isTTY === true && process.stdin.isTTY === true;
  const { signal, dispose, interrupt } = interruptOnSignals(io);
  const home = neoHome(io.env);
  const attached = await attachRun(home, `neo flow resume ${runId}`, output.observer, interrupt);
  let metrics: ProcessMetrics | undefined;
  try {
    metrics = await openMetrics(io, port, attached?.sessionHost.metrics);
    const outcome = await resumeRun({
      home,
      cwd: io.cwd,
      runId: record.runId,
      rerun: options.rerun ?? [],
      observer: attached?.observer ?? output.observer,
      sessionHost: { ...attached?.sessionHost, metrics: metrics.sink },
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
    await metrics?.close();
    await attached?.close();
  }
}
