/**
 * `neo persona run` shows what `neo flow run` shows: the persona becomes a one-step run in the
 * flow renderer (live tree on a terminal, one line per event otherwise, NDJSON with --json), its
 * observations turned into the same progress and step events.
 */
import type { CompiledPlan, FlowObservation, RunObserver, RunRecord } from '../../engine/flow/index.js';
import type { PersonaObservation, PersonaRunResult } from '../../engine/persona/index.js';
import { defined } from '../../engine/util/defined.js';

export interface PersonaRunView {
  observe(o: PersonaObservation): void;
  begin(): void;
  finish(result: PersonaRunResult | undefined, error?: { code: string; message: string }): void;
}

/** Feeds a flow observer with one step named after the persona. */
export function personaRunView(
  observer: RunObserver,
  info: { runId: string; persona: string; cwd: string; setHash: string; backend?: string },
): PersonaRunView {
  const step = info.persona;
  const now = () => new Date().toISOString();
  let seq = 0;
  let rounds = 0;
  let cost = 0;
  const files = new Set<string>();
  const emit = (o: FlowObservation) => observer(o);
  const event = (body: Record<string, unknown>) =>
    emit({ type: 'event', runId: info.runId, depth: 0, event: { ...body, seq: ++seq, at: now() } as never });
  const progress = (update: Record<string, unknown>) =>
    emit({ type: 'progress', runId: info.runId, depth: 0, progress: { exec: `${step}#1`, step, ...update } });
  return {
    begin() {
      emit({ type: 'run', runId: info.runId, depth: 0, record: record(info), plan: plan(info), resumed: false });
      event({ type: 'step.started', step, attempt: 1, iteration: 1, exec: `${step}#1` });
    },
    observe(o) {
      const note = (message: string, level: 'info' | 'warning' = 'info') =>
        emit({ type: 'notice', runId: info.runId, depth: 0, level, message });
      switch (o.type) {
        case 'notice':
          // "checking …" is a state of the step, not news.
          if (o.message.startsWith('checking')) progress({ note: o.message });
          else note(o.message, o.level);
          return;
        case 'selected':
          note(`backend ${o.plan.why}`);
          progress({ backend: o.plan.backend });
          return;
        case 'rejected':
          note(`start on ${o.rejection.backend} rejected: ${o.rejection.code}: ${o.rejection.message}`, 'warning');
          return;
        case 'started':
          progress({
            backend: o.session.backend,
            round: 1,
            maxRounds: o.session.maxRounds,
            note: `posture ${o.session.posture} ≤ ${o.session.maxPosture}`,
          });
          return;
        case 'answered':
          note(`${o.answer.allow ? 'allowed' : 'denied'} ${o.toolName} (${o.answer.by}): ${o.answer.reason}`);
          progress({ note: `${o.answer.allow ? 'allowed' : 'denied'} ${o.toolName}` });
          return;
        case 'checked':
          note(
            `check \`${o.check.command}\` ${o.check.passed ? 'passed' : `failed (${o.check.timedOut ? 'timed out' : `exit ${o.check.exitCode ?? '?'}`})`}`,
          );
          return;
        case 'judged':
          if (o.judgement.kind === 'guide') note(`guidance sent: ${o.judgement.why}`);
          return;
        case 'waiting':
          note(`${o.prompt} — answer with: ${o.command}`);
          progress({ note: `waiting for approval: ${o.command}` });
          return;
        case 'agent': {
          const e = o.live.event;
          if (e.type === 'tool_use') progress({ tool: e.name, round: rounds + 1 });
          else if (e.type === 'started' && e.model !== undefined) progress({ model: e.model });
          // A notice (the CLI retrying a failed model request, a denied ask): shown as it happens, as in a flow.
          else if (e.type === 'error' && e.transient === true) progress({ notice: e.message });
          else if (e.type === 'turn_diff') {
            for (const f of e.diff.files) files.add(f.path);
            progress({ filesChanged: files.size });
          } else if (e.type === 'turn_complete') {
            rounds++;
            cost += typeof e.costUsd === 'number' ? e.costUsd : 0;
            progress({ round: rounds, costUsd: cost });
          }
          return;
        }
        default:
          return;
      }
    },
    finish(result, error) {
      const v = result?.verdict;
      const check = result?.outcome.check;
      const outputs: Record<string, unknown> = {
        ...(v === undefined ? {} : { verdict: v.outcome, note: v.note }),
        ...(result === undefined
          ? {}
          : {
              costUsd: result.costUsd,
              rounds: result.outcome.rounds,
              sessionId: result.session?.sessionId,
              backend: result.session?.backend,
              model: result.model,
            }),
        ...(check === undefined
          ? {}
          : {
              gate: {
                command: check.command,
                passed: check.passed,
                attempt: result!.outcome.checkRuns,
                attempts: result!.outcome.checkRuns,
              },
            }),
      };
      const failure =
        error ??
        (v !== undefined && v.outcome !== 'success'
          ? { code: `PERSONA_${v.outcome.toUpperCase()}`, message: v.failureReason ?? v.note }
          : undefined);
      event({
        type: 'step.completed',
        step,
        status: v?.outcome === 'success' ? 'succeeded' : 'failed',
        outputs,
        ...(v === undefined ? {} : { verdict: v.outcome }),
        ...defined({ error: failure }),
      });
    },
  };
}

function plan(info: { persona: string; cwd: string; backend?: string }): CompiledPlan {
  return {
    name: `persona ${info.persona}`,
    file: '',
    projectDir: info.cwd,
    inputs: {},
    env: {},
    workspace: { isolation: 'inplace' },
    maxParallel: 1,
    budgets: {},
    steps: [
      {
        id: info.persona,
        kind: 'agent',
        group: 'main',
        needs: [],
        reach: [],
        join: 'all_success',
        continueOnError: false,
        env: {},
        agent: {
          brief: '',
          persona: info.persona,
          ...defined({ backend: info.backend }),
          maxPosture: 'acceptEdits',
          initialPosture: 'default',
          taskTags: [],
          requireChange: false,
          allowCommands: [],
          editToolNames: [],
          provenance: {},
        },
      },
    ],
  };
}

function record(info: { runId: string; persona: string; setHash: string }): RunRecord {
  const at = new Date().toISOString();
  return {
    version: 1,
    runId: info.runId,
    flow: `persona ${info.persona}`,
    planFile: '',
    status: 'running',
    createdAt: at,
    updatedAt: at,
    inputs: {},
    manifest: { setHash: info.setHash, planHash: '', definitions: [] },
    options: {},
    ledger: { turns: 0, tokens: 0, costUsd: 0, wallMs: 0 },
    steps: {},
    segments: [],
  };
}
