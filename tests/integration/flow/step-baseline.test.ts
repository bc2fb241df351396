/**
 * The step guard hands its base to the step's first session start as the first turn's diff
 * baseline, and only a base it snapshotted now: a later start, or a step whose base was read
 * back from the run's folder (a resume, a retry), takes its own.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { SessionPort } from '../../../engine/flow/agent/driver.js';
import { StepGuard } from '../../../engine/flow/agent/step-guard.js';
import type { WorkspaceRecord } from '../../../engine/flow/store/run-files.js';
import type { DiffBaseline } from '../../../engine/session/index.js';
import { tempDir } from '../../helpers/temp.js';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

/** A session port that records the options of each start and answers with a new session id. */
function recordingPort(): { port: SessionPort; handed: Array<DiffBaseline | undefined> } {
  const handed: Array<DiffBaseline | undefined> = [];
  const port = {
    execute: async (input: { op: string }, _caller: unknown, options?: { baseline?: DiffBaseline }) => {
      if (input.op === 'start') handed.push(options?.baseline);
      return { sessionId: `s${handed.length}`, backend: 'script', posture: 'acceptEdits' };
    },
    setScopeConstraints: () => undefined,
    onSessionEvent: () => () => undefined,
    releaseAllOwnedBy: async () => undefined,
  } as unknown as SessionPort;
  return { port, handed };
}

async function place() {
  const root = await tempDir('neo-step-baseline-');
  await execa('git', ['init', '-q', '-b', 'main'], { cwd: root });
  await writeFile(join(root, 'a.txt'), 'a\n');
  await execa('git', ['add', '-A'], { cwd: root });
  await execa('git', ['commit', '-qm', 'init'], { cwd: root, env: GIT_ENV });
  const workspace: WorkspaceRecord = { isolation: 'inplace', path: root, root, projectDir: root, repo: root };
  return { root, workspace, home: await tempDir('neo-home-'), runDir: await tempDir('neo-run-') };
}

async function guard(p: Awaited<ReturnType<typeof place>>, port: SessionPort, startedAt: string) {
  return StepGuard.open({
    workspace: p.workspace,
    home: p.home,
    runDir: p.runDir,
    key: 'a.1',
    startedAt,
    cwd: p.root,
    editToolNames: [],
    sessions: port,
    signal: new AbortController().signal,
  });
}

const start = (g: StepGuard) => g.sessions.execute({ op: 'start', brief: 'go' }, { scope: 'flow:test' });

describe("a step's first diff baseline", () => {
  it('is the base the guard took, for the first start only', async () => {
    const p = await place();
    const { port, handed } = recordingPort();
    const g = await guard(p, port, '2026-12-06T00:00:00.000Z');
    await start(g);
    await start(g);
    g.close();
    expect(handed[0]?.tree).toMatch(/^[0-9a-f]{40}$/);
    expect(handed[0]?.repo.location.top).toBe(p.root);
    expect(handed[1]).toBeUndefined();
  });

  it('is not handed when the base was read back from the run folder (a resumed unit)', async () => {
    const p = await place();
    const first = recordingPort();
    const g1 = await guard(p, first.port, '2026-12-06T00:00:00.000Z');
    g1.close();
    // What the killed attempt wrote: the recorded base no longer is the tree.
    await writeFile(join(p.root, 'from-the-killed-attempt.txt'), 'x\n');
    const resumed = recordingPort();
    const g2 = await guard(p, resumed.port, '2026-12-06T00:00:00.000Z');
    await start(g2);
    g2.close();
    expect(resumed.handed).toEqual([undefined]);
  });
});
