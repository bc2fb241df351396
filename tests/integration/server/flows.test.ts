import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isSameProcess } from '../../../engine/execution/index.js';
import { readRunRecord, startRun, type RunOutcome } from '../../../engine/flow/index.js';

const isProcessAlive = (pid: number) => isSameProcess({ pid });
import { attachToServer, type ServerAttachment } from '../../../engine/server/index.js';
import { NEO_BIN } from '../../helpers/cli.js';
import { dataOf, SseClient, startTestServer } from '../../helpers/serve.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

const PLAN = `
name: ship-it
defaults: { backend: script, maxPosture: acceptEdits, maxRounds: 3 }
steps:
  - id: fix
    brief: Write the fix.
    script: agent.yaml
  - id: ship
    needs: [fix]
    approval: { prompt: "Ship the fix?" }
  - { id: after, needs: [ship], run: 'echo shipped > shipped.txt' }
finally:
  - { id: tidy, run: 'true' }
`;
const AGENT = 'turns:\n  - - write: { path: fix.txt, content: "fixed\\n" }\n    - say: Fixed it.\n';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function setup() {
  const started = await startTestServer({ neoArgv: [process.execPath, NEO_BIN] });
  cleanup.push(() => started.server.close());
  const dir = join(await tempDir('neo-serve-flow-'), 'project');
  await writeTree(dir, { 'plan.yaml': PLAN, 'agent.yaml': AGENT });
  const events = new SseClient(`${started.server.origin}/api/events`, {
    authorization: `Bearer ${started.server.token}`,
  });
  cleanup.push(() => events.close());
  /** A run in this process, attached to the server as `neo flow run` would be. */
  const runAttached = async () => {
    const attachment = (await attachToServer(started.home, 'test flow')) as ServerAttachment;
    const controller = new AbortController();
    attachment.onCancel(() => controller.abort());
    const outcome = startRun({
      home: started.home,
      cwd: dir,
      planFile: 'plan.yaml',
      isolation: 'copy',
      signal: controller.signal,
      observer: (o) => attachment.observeFlow(o),
      sessionHost: { metrics: attachment.metrics, serviceCreated: (s) => attachment.bindSessions(s) },
    }).finally(() => attachment.close());
    cleanup.push(() => {
      controller.abort();
      return outcome.catch(() => undefined);
    });
    return outcome;
  };
  return { ...started, dir, events, runAttached };
}

describe('flow routes', () => {
  it('shows a run live with its step graph, takes the approval from the inbox, and refuses what does not apply', async () => {
    const { api, events, runAttached } = await setup();
    const running = runAttached();
    const requested = JSON.parse((await events.waitFor((e) => e.event === 'approval_requested')).data);
    expect(requested).toMatchObject({ kind: 'flow', key: 'ship', prompt: 'Ship the fix?', live: true });
    const runId = requested.runId as string;

    const list = await api('/api/flows/runs');
    expect(list.body.data.runs.map((r: { runId: string }) => r.runId)).toEqual([runId]);
    expect(list.body.data.live).toEqual([runId]);
    const detail = (await api(`/api/flows/runs/${runId}`)).body.data;
    expect(detail.live).toBe(true);
    expect(detail.graph).toEqual({
      nodes: [
        { id: 'fix', label: 'fix\nagent · script', kind: 'agent', group: 'main' },
        { id: 'ship', label: 'ship\napproval', kind: 'approval', group: 'main' },
        { id: 'after', label: 'after\nrun', kind: 'run', group: 'main' },
        { id: 'tidy', label: 'tidy\nrun', kind: 'run', group: 'finally' },
      ],
      edges: [
        { from: 'fix', to: 'ship', dashed: false },
        { from: 'ship', to: 'after', dashed: false },
        { from: 'after', to: 'tidy', dashed: true },
      ],
    });
    expect(detail.state.steps.fix).toMatchObject({ status: 'succeeded', verdict: 'success' });
    // A copy workspace has no git: the diff comes from the agent's edit tools.
    expect(detail.state.steps.fix.outputs.diff.files).toEqual([{ path: 'fix.txt', status: 'M' }]);
    expect(detail.state.steps.ship.status).toBe('running');
    const inbox = (await api('/api/approvals')).body.data.items;
    expect(inbox).toEqual([
      {
        kind: 'flow',
        runId,
        key: 'ship',
        prompt: 'Ship the fix?',
        decisions: [
          { id: 'approve', label: 'Approve', fail: false },
          { id: 'reject', label: 'Reject', fail: true },
        ],
        live: true,
        flow: 'ship-it',
      },
    ]);
    const page = (await api(`/api/flows/runs/${runId}/events?afterSeq=2&limit=3`)).body.data;
    expect(page.events.map((e: { seq: number }) => e.seq)).toEqual([3, 4, 5]);

    const unknown = await api(`/api/flows/runs/${runId}/approvals/ship`, { json: { decision: 'maybe' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.code).toBe('FLOW_UNKNOWN_DECISION');
    const notApproval = await api(`/api/flows/runs/${runId}/approvals/fix`, { json: { decision: 'approve' } });
    expect(notApproval.status).toBe(409);
    const noStep = await api(`/api/flows/runs/${runId}/approvals/nope`, { json: { decision: 'approve' } });
    expect(noStep.status).toBe(404);
    const live = await api(`/api/flows/runs/${runId}/resume`, { method: 'POST' });
    expect(live.status).toBe(409);
    expect(live.body.error?.code).toBe('FLOW_RUN_LIVE');

    const approved = await api(`/api/flows/runs/${runId}/approvals/ship`, {
      json: { decision: 'approve', reason: 'looks right' },
    });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toEqual({ runId, key: 'ship', decision: 'approve', live: true });
    const outcome = await running;
    expect(outcome.status).toBe('succeeded');
    expect(outcome.state.steps.get('ship')!.outputs).toEqual({ decision: 'approve', by: 'web', note: 'looks right' });
    await events.waitFor((e) => e.event === 'flow_run_event' && JSON.parse(e.data).type === 'settled');
    const kinds = dataOf(events.events, 'flow_run_event').map((d) => (d.type === 'event' ? d.event.type : d.type));
    expect(kinds[0]).toBe('run');
    expect(kinds).toContain('step.started');
    expect(kinds.filter((k) => k === 'run.finished')).toHaveLength(1);
    const sessionId = String(outcome.state.steps.get('fix')!.outputs!.sessionId);
    expect(dataOf(events.events, 'code_session_event').some((d) => d.sessionId === sessionId)).toBe(true);

    const again = await api(`/api/flows/runs/${runId}/approvals/ship`, { json: { decision: 'approve' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'FLOW_APPROVAL_ANSWERED',
      message: expect.stringMatching(/^`ship` of run \S+ was already answered: approve by web at \S+/),
    });
    const cancel = await api(`/api/flows/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(409);
    const done = await api(`/api/flows/runs/${runId}/resume`, { method: 'POST' });
    expect(done.status).toBe(409);
    expect(done.body.error?.code).toBe('FLOW_RUN_FINISHED');
  });

  it('cancel interrupts the run in its process; resume starts `neo flow resume`, which attaches and finishes', async () => {
    const { api, events, home, runAttached } = await setup();
    const running = runAttached();
    const runId = JSON.parse((await events.waitFor((e) => e.event === 'approval_requested')).data).runId as string;
    const cancelled = await api(`/api/flows/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    const outcome: RunOutcome = await running;
    expect(outcome.status).toBe('interrupted');

    const resumed = await api(`/api/flows/runs/${runId}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(202);
    const pid = resumed.body.data.pid as number;
    cleanup.push(async () => {
      if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
    });
    // The new process attaches and waits at the approval again.
    await events.waitFor(
      (e) =>
        e.event === 'approval_requested' &&
        JSON.parse(e.data).runId === runId &&
        e !== events.events.find((x) => x.event === 'approval_requested'),
      30_000,
    );
    const approved = await api(`/api/approvals/${runId}/ship`, { json: { decision: 'approve' } });
    expect(approved.status).toBe(200);
    for (let i = 0; i < 300 && isProcessAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(isProcessAlive(pid)).toBe(false);
    const record = await readRunRecord(home, runId);
    expect(record.status).toBe('succeeded');
    expect(record.segments).toHaveLength(2);
  });
});
