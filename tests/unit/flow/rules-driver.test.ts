import { describe, expect, it } from 'vitest';
import type { AgentContext, GateRun, SessionPort } from '../../../engine/flow/agent/driver.js';
import { RulesDriver } from '../../../engine/flow/agent/rules-driver.js';
import type { AgentSettings } from '../../../engine/flow/core/plan.js';

/** Files the turns handed out so far changed: the fake step's net change. */
const changedSoFar = new WeakMap<SessionPort, Set<string>>();

/** A session port that answers read-turn from a queue and records every op. */
function fakeSessions(turns: unknown[]): { port: SessionPort; ops: Array<Record<string, unknown>> } {
  const ops: Array<Record<string, unknown>> = [];
  const changed = new Set<string>();
  const port: SessionPort = {
    async execute(input) {
      const op = input as Record<string, unknown>;
      ops.push(op);
      if (op.op === 'start')
        return { sessionId: 'cs_1', backend: 'fake', posture: 'acceptEdits', maxPosture: 'acceptEdits', maxRounds: 5 };
      if (op.op === 'read-turn') {
        const turn = turns.shift() as { turnDiff?: { files: Array<{ path: string }> } } | undefined;
        for (const file of turn?.turnDiff?.files ?? []) changed.add(file.path);
        return turn ?? new Promise(() => {});
      }
      return { ok: true };
    },
    onSessionEvent: () => () => {},
    releaseAllOwnedBy: async () => {},
  };
  changedSoFar.set(port, changed);
  return { port, ops };
}

const settings: AgentSettings = {
  brief: 'fix it',
  backend: 'fake',
  maxPosture: 'acceptEdits',
  initialPosture: 'acceptEdits',
  taskTags: [],
  requireChange: true,
  allowCommands: [],
  editToolNames: ['write'],
  provenance: {},
  verify: { run: 'npm test', attempts: 2, flakeCheck: false, baseline: false },
};

function context(sessions: SessionPort, gates: boolean[], budget: Array<string | undefined> = []): AgentContext {
  return {
    sessions,
    signal: new AbortController().signal,
    budget: () => {
      const code = budget.shift();
      return code === undefined ? undefined : { code, message: 'spent' };
    },
    charge: () => {},
    progress: () => {},
    runGate: async (): Promise<GateRun> => {
      const passed = gates.shift() ?? false;
      return { passed, exitCode: passed ? 0 : 1, tail: passed ? 'ok' : 'FAIL x', timedOut: false, durationMs: 1 };
    },
    stepDiff: async () => {
      const files = [...(changedSoFar.get(sessions) ?? [])].map((path) => ({ path, status: 'M' as const }));
      return { files, summary: '', unified: '', truncated: false, source: 'git' };
    },
    now: () => Date.now(),
  };
}

const diff = { source: 'git', files: [{ path: 'a.js', status: 'M', insertions: 1, deletions: 1 }], summaryLine: '' };

describe('RulesDriver', () => {
  it('start → answer a clarification → gate fails → guide with the tail → gate passes → stop success', async () => {
    const { port, ops } = fakeSessions([
      { kind: 'clarification', clarificationId: 'c1', toolName: 'write', input: { path: 'a.js' } },
      { kind: 'turn_complete', actions: [], text: 'first', roundHistory: [], turnDiff: diff },
      { kind: 'turn_complete', actions: [], text: 'second', roundHistory: [] },
    ]);
    const outcome = await new RulesDriver().drive(
      { runId: 'r', step: 's', exec: 's#1', settings, brief: 'fix it', cwd: '/ws' },
      context(port, [false, true]),
    );
    expect(ops.map((o) => o.op)).toEqual(['start', 'read-turn', 'answer', 'read-turn', 'guide', 'read-turn', 'stop']);
    expect(ops[2]).toEqual({
      op: 'answer',
      sessionId: 'cs_1',
      clarificationId: 'c1',
      allow: true,
      reason: 'edit inside the workspace (a.js)',
    });
    expect(String(ops[4]!.text)).toBe(
      'The check `npm test` exited 1 (attempt 1 of 2). Fix the cause; do not weaken or skip the check.\nLast lines of its output:\n```\nFAIL x\n```',
    );
    expect(ops[6]).toEqual({ op: 'stop', sessionId: 'cs_1', outcome: 'success', note: 'verified' });
    expect(outcome).toMatchObject({
      status: 'succeeded',
      verdict: 'success',
      outputs: { text: 'second', sessionId: 'cs_1', gate: { passed: true, attempt: 2, attempts: 2 } },
    });
  });

  it('reports an agent error, max_rounds with a failing gate, and a refused start honestly', async () => {
    const errored = fakeSessions([{ kind: 'error', message: 'crashed' }]);
    expect(
      await new RulesDriver().drive(
        { runId: 'r', step: 's', exec: 's#1', settings, brief: 'b', cwd: '/ws' },
        context(errored.port, []),
      ),
    ).toMatchObject({
      status: 'failed',
      error: { code: 'FLOW_AGENT_ERROR', message: 'the agent failed: crashed', transient: true },
    });
    const capped = fakeSessions([{ kind: 'max_rounds', ok: true, text: 't', rounds: 5, turnDiff: diff }]);
    expect(
      await new RulesDriver().drive(
        { runId: 'r', step: 's', exec: 's#1', settings, brief: 'b', cwd: '/ws' },
        context(capped.port, [false]),
      ),
    ).toMatchObject({
      status: 'failed',
      error: { code: 'FLOW_MAX_ROUNDS', message: 'the agent used all 5 rounds and the check still fails' },
    });
    const budget = fakeSessions([]);
    expect(
      await new RulesDriver().drive(
        { runId: 'r', step: 's', exec: 's#1', settings, brief: 'b', cwd: '/ws' },
        context(budget.port, [], ['FLOW_BUDGET_EXCEEDED']),
      ),
    ).toMatchObject({
      status: 'failed',
      error: { code: 'FLOW_BUDGET_EXCEEDED' },
    });
    expect(budget.ops).toEqual([]);
  });

  it('stops an aborted session with outcome aborted and the abort reason', async () => {
    const { port, ops } = fakeSessions([]);
    const controller = new AbortController();
    const ctx = { ...context(port, []), signal: controller.signal };
    const driving = new RulesDriver().drive(
      { runId: 'r', step: 's', exec: 's#1', settings, brief: 'b', cwd: '/ws' },
      ctx,
    );
    setTimeout(() => controller.abort({ code: 'FLOW_STEP_TIMEOUT', message: 'too slow' }), 10);
    expect(await driving).toMatchObject({
      status: 'failed',
      verdict: 'aborted',
      error: { code: 'FLOW_STEP_TIMEOUT', message: 'too slow' },
    });
    expect(ops.map((o) => o.op)).toEqual(['start', 'read-turn', 'interrupt', 'stop']);
    expect(ops.at(-1)).toMatchObject({ outcome: 'aborted' });
  });
});
