import { join, resolve } from 'node:path';
import { loadDefinitions, hasErrors, summarizeDiagnostics, type Effort } from '../../engine/definitions/index.js';
import { trackRecords } from '../../engine/learning/index.js';
import { loadPersona, runPersona, type PersonaRunResult, type TerminalAsk } from '../../engine/persona/index.js';
import { attachToServer } from '../../engine/server/index.js';
import { JsonLinesLog, teeLogs } from '../../engine/observability/index.js';
import { createSessionService, stderrLog } from '../../engine/session/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { metricsPort, openMetrics } from '../metrics-port.js';
import { terminalSafeDeep } from '../../engine/util/terminal-text.js';
import { painter, useColor, writeJsonLine, writeLine, type CommandIO } from '../io.js';
import { flowOutput } from '../flow/output.js';
import { terminalPrompter } from '../flow/prompt.js';
import { interruptOnSignals } from '../flow/signals.js';
import { personaRunView } from '../persona/view.js';
import { defined } from '../../engine/util/defined.js';

interface RunFlags {
  brief?: string;
  backend?: string;
  cwd?: string;
  script?: string;
  model?: string;
  effort?: Effort;
  tag?: string[];
  json?: boolean;
  metricsPort?: string;
}

/**
 * `neo persona run [id] --brief "…"`: one persona outside a flow, with the flow's live display.
 * No persona id runs the default driver (code-specialist). Exit 0 only on a verified success.
 */
export async function run(io: CommandIO, id: string | undefined, options: RunFlags): Promise<number> {
  if (options.brief === undefined || options.brief.trim() === '')
    throw new UsageError('CLI_NO_BRIEF', 'a brief is required', { hint: 'pass --brief "what to do"' });
  const home = neoHome(io.env);
  const port = metricsPort(options.metricsPort);
  const cwd = resolve(io.cwd, options.cwd ?? '.');
  const loaded = await loadDefinitions({ cwd, home });
  if (hasErrors(loaded.diagnostics))
    writeLine(
      io.stderr,
      `note: definitions have problems (${summarizeDiagnostics(loaded.diagnostics)}); run \`neo validate\` to see them`,
    );
  const set = loaded.set;
  set.assertOwnerPolicy();
  const persona = loadPersona(set, id);
  if (options.backend !== undefined && set.get('backend', options.backend) === undefined) {
    throw new UsageError('CLI_UNKNOWN_BACKEND', `unknown backend \`${options.backend}\``, {
      hint: `known backends: ${set.ids('backend').join(', ')}`,
    });
  }
  const json = options.json === true;
  const output = flowOutput(io, { json });
  const interactive = !json && io.stdout.isTTY === true && process.stdin.isTTY === true;
  const { signal, dispose, interrupt } = interruptOnSignals(io);
  const attachment = await attachToServer(home, `neo persona run ${persona.view.id}`);
  attachment?.onCancel(() => interrupt('cancelled from the control plane'));
  const metrics = await openMetrics(io, port, attachment?.metrics).catch(async (error: unknown) => {
    dispose();
    await attachment?.close();
    throw error;
  });
  const records = trackRecords(home);
  const runId = `persona-${persona.view.id}-${Date.now().toString(36)}`;
  // This run's decisions as JSON lines with levels (NEO_HOME/logs/<runId>.jsonl).
  const decisions = new JsonLinesLog(join(home, 'logs', `${runId}.jsonl`));
  const service = createSessionService({
    home,
    definitions: set,
    defaultCwd: cwd,
    log: teeLogs(stderrLog, decisions),
    trackRecord: (backend) => records.lines(backend),
    metrics: metrics.sink,
  });
  attachment?.bindSessions(service);
  const view = personaRunView(output.observer, {
    runId,
    persona: persona.view.id,
    cwd,
    setHash: set.hash,
    ...defined({ backend: options.backend }),
  });
  let result: PersonaRunResult | undefined;
  let failure: { code: string; message: string } | undefined;
  try {
    view.begin();
    result = await runPersona({
      home,
      set,
      persona,
      brief: options.brief,
      cwd,
      sessions: service,
      runId,
      ...(options.backend === undefined
        ? {}
        : { caller: { source: '--backend', knobs: { backend: options.backend }, backendOverride: true } }),
      ...(options.script === undefined ? {} : { backendOptions: { script: resolve(io.cwd, options.script) } }),
      ...defined({ agentModel: options.model, effort: options.effort }),
      ...(options.tag === undefined || options.tag.length === 0 ? {} : { taskTags: options.tag }),
      ...(interactive ? { terminal: terminalAsk(io, output) } : {}),
      env: io.env,
      signal,
      observe: (o) => view.observe(o),
      metrics: metrics.sink,
    });
  } catch (error) {
    const e = error as { code?: string; message?: string };
    failure = { code: e.code ?? 'PERSONA_FAILED', message: e.message ?? String(error) };
    throw error;
  } finally {
    view.finish(result, failure);
    output.close();
    await service.close();
    await decisions.close();
    dispose();
    await metrics.close();
    await attachment?.close();
  }
  printSummary(io, result, json);
  if (result.verdict.outcome === 'success') return EXIT.ok;
  return signal.aborted ? EXIT.interrupted : EXIT.failed;
}

function terminalAsk(io: CommandIO, around: { pause(): void; resume(): void }): TerminalAsk {
  const prompter = terminalPrompter(io, around);
  return (question, signal) =>
    prompter(
      {
        runId: question.runId,
        step: question.key,
        prompt: question.detail === undefined ? question.prompt : `${question.prompt}\n${question.detail}`,
        decisions: question.decisions.map((d) => ({ id: d.id, label: d.label, fail: false })),
      },
      signal,
    );
}

function printSummary(io: CommandIO, result: PersonaRunResult, json: boolean): void {
  const verdict = result.verdict;
  // The session's own count: a last turn that hit the round cap is a round too.
  const rounds = result.records.at(-1)?.rounds ?? result.outcome.rounds;
  const records = result.records.map((r) => ({
    sessionId: r.sessionId,
    backendId: r.backendId,
    model: r.model ?? null,
    outcome: r.outcome,
    rounds: r.rounds,
    costUsd: r.costUsd ?? null,
  }));
  if (json) {
    writeJsonLine(io.stdout, {
      type: 'summary',
      runId: result.runId,
      verdict: verdict.outcome,
      note: verdict.note,
      failureReason: verdict.failureReason ?? null,
      sessionId: result.session?.sessionId ?? null,
      backend: result.session?.backend ?? null,
      model: result.model ?? null,
      rounds,
      costUsd: result.costUsd,
      records,
    });
    return;
  }
  const p = painter(useColor(io.stdout, io.env));
  const v = terminalSafeDeep(result.verdict);
  const head = v.outcome === 'success' ? p.green('✓') : v.outcome === 'partial' ? p.yellow('◐') : p.red('✗');
  writeLine(io.stdout);
  writeLine(io.stdout, `${head} ${p.bold(v.outcome)} · ${v.note}`);
  if (v.failureReason !== undefined && v.outcome !== 'success' && v.failureReason !== v.note)
    writeLine(io.stdout, `  ${p.red('reason')}: ${v.failureReason}`);
  if (result.session !== undefined) {
    writeLine(
      io.stdout,
      `  session ${result.session.sessionId} · ${result.session.backend}${result.model ? ` · ${result.model}` : ''} · ${rounds} round${rounds === 1 ? '' : 's'} · $${result.costUsd.toFixed(4)}`,
    );
  }
  if (result.records.length > 0)
    writeLine(
      io.stdout,
      p.dim(
        `  recorded ${result.records.length} outcome${result.records.length === 1 ? '' : 's'} in learning/harness-outcomes.jsonl`,
      ),
    );
}
