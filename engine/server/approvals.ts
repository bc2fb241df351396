/**
 * The approvals inbox: every flow approval step waiting for an answer (from run.json) and every
 * question a driving persona put to a person (`approvals/<runId>/<key>.question.json`), and the
 * one way to answer both — the same checks and files as `neo flow approve`.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { approveRun, driverAlive, listRunsSettled, runDir, type CompiledPlan } from '../flow/index.js';
import { answerQuestion, askedQuestion, pendingQuestion } from '../persona/index.js';
import { readJsonOrNull } from '../util/atomic-file.js';
import { isIdOf } from './ids.js';
import { capabilityInboxItems } from './capability-approvals.js';
import { currentRunState } from './run-state.js';
import { defined } from '../util/defined.js';

export interface InboxItem {
  kind: 'flow' | 'question' | 'capability';
  runId: string;
  /** The step key (`ship`, `ship[2]`) or question key (`fix-q1`). */
  key: string;
  prompt: string;
  detail?: string;
  decisions: Array<{ id: string; label: string; fail: boolean }>;
  /** Whether a process is waiting for the answer now (otherwise it applies on resume). */
  live: boolean;
  flow?: string;
}

/**
 * Every open approval and question, newest run first. A run's approvals are read from its events
 * (folded), not from run.json, which is written a moment later: the inbox agrees with the
 * `approval_requested` event that sent someone to it.
 */
export async function readInbox(home: string): Promise<InboxItem[]> {
  const items: InboxItem[] = [];
  for (const record of await listRunsSettled(home)) {
    if (record.status === 'succeeded' || record.status === 'failed') continue;
    const plan = await readJsonOrNull<CompiledPlan>(join(runDir(home, record.runId), 'plan.json'));
    const approvals = plan?.steps.filter((s) => s.kind === 'approval' && s.approval !== undefined) ?? [];
    if (approvals.length === 0) continue;
    const { state } = await currentRunState(home, record.runId);
    // A run whose driver was killed while it waited is interrupted with its approval still open:
    // the answer waits for the resume.
    if (state === null || (state.status !== 'running' && state.status !== 'interrupted')) continue;
    for (const step of approvals) {
      const units = state.steps.get(step.id)?.units ?? [state.steps.get(step.id)];
      units.forEach((unit, index) => {
        if (unit?.status !== 'running') return;
        items.push({
          kind: 'flow',
          runId: record.runId,
          key: state.steps.get(step.id)?.units === undefined ? step.id : `${step.id}[${index}]`,
          prompt: step.approval!.prompt,
          decisions: step.approval!.decisions,
          live: driverAlive(record),
          flow: record.flow,
        });
      });
    }
  }
  items.push(...(await readQuestions(home)));
  items.push(...(await capabilityInboxItems(home)));
  return items;
}

/** Persona questions waiting in NEO_HOME/approvals/. */
export async function readQuestions(home: string): Promise<InboxItem[]> {
  const root = join(home, 'approvals');
  const runs = await readdir(root).catch(() => [] as string[]);
  const items: InboxItem[] = [];
  for (const runId of runs.filter((r) => isIdOf('run', r))) {
    const files = await readdir(join(root, runId)).catch(() => [] as string[]);
    for (const file of files) {
      const key = file.endsWith('.question.json') ? file.slice(0, -'.question.json'.length) : undefined;
      if (key === undefined || !isIdOf('approval', key)) continue;
      const question = await pendingQuestion(home, runId, key);
      if (question === undefined) continue;
      items.push({
        kind: 'question',
        runId,
        key,
        prompt: question.prompt,
        ...defined({ detail: question.detail }),
        decisions: question.decisions.map((d) => ({ id: d.id, label: d.label, fail: false })),
        live: true,
      });
    }
  }
  return items;
}

/**
 * Answers an approval or a question. A persona's question takes precedence, as in
 * `neo flow approve`; everything is checked (the step, the decision, not answered yet), and the
 * first answer wins across processes: a later one throws (409) naming it.
 */
export async function answerApproval(options: {
  home: string;
  runId: string;
  key: string;
  decision: string;
  reason?: string;
  by: string;
}): Promise<{ runId: string; key: string; decision: string; live: boolean }> {
  const { home, runId, key, decision, by } = options;
  const note = options.reason === undefined || options.reason === '' ? {} : { note: options.reason };
  if ((await askedQuestion(home, runId, key)) !== undefined) {
    await answerQuestion(home, runId, key, { decision, by, ...note });
    return { runId, key, decision, live: true };
  }
  const result = await approveRun({ home, runId, step: key, decision, by, ...note });
  return { runId: result.record.runId, key: result.key, decision, live: result.live };
}
