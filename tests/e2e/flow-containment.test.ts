import { execa } from 'execa';
import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { FAKE_BINARIES, fakeWithEnv } from '../contract/fake-backends.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git, onlyRunId, readEvents, spawnNeo } from './flow-helpers.js';

/** A committed git repository holding `files`, with its own NEO_HOME beside it. */
async function repoWith(files: Record<string, string>): Promise<{ repo: string; home: string }> {
  const root = await tempDir('neo-contain-e2e-');
  const repo = join(root, 'repo');
  await writeTree(repo, files);
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return { repo, home: join(root, 'home') };
}

const agentPlan = (script: string, extra = '') => `
name: contain
defaults: { backend: script, maxPosture: full, posture: full, maxRounds: 4 }
steps:
  - id: work
    brief: Do the work.
    script: ${script}
${extra}`;

async function stepOf(home: string, runId: string, step = 'work') {
  const snapshot = JSON.parse(await readFile(join(home, 'runs', runId, 'snapshot.json'), 'utf8'));
  return snapshot.state.steps[step] as {
    status: string;
    verdict?: string;
    error?: { code: string; message: string };
    outputs?: {
      diff?: {
        files: Array<{ path: string; status: string; oldPath?: string }>;
        unified: string;
        summary: string;
        truncated: boolean;
      };
    };
  };
}

async function waitFor(path: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (
      await access(path).then(
        () => true,
        () => false,
      )
    )
      return;
    if (Date.now() > until) throw new Error(`${path} never appeared`);
    await sleep(50);
  }
}

describe('neo flow run: a step’s diff is one net patch from its base', () => {
  it('joins no per-turn diffs, leaves out an edit undone, and applies with git apply --check', async () => {
    const { repo, home } = await repoWith({
      'a.txt': 'one\ntwo\nthree\n',
      'b.txt': 'bee\n',
      'plan.yaml': agentPlan('two-turns.yaml', "    verify: { run: 'test -f done', attempts: 2 }"),
      'two-turns.yaml': `turns:
  - - edit: { path: a.txt, search: "two", replace: "TWO" }
    - write: { path: scratch.txt, content: "temporary\\n" }
    - run: { command: "mv b.txt bee.txt" }
    - say: First pass.
  - - edit: { path: a.txt, search: "three", replace: "THREE" }
    - delete: { path: scratch.txt }
    - write: { path: done, content: "" }
    - say: Done.
`,
    });
    const result = await runNeo(['flow', 'run', 'plan.yaml'], { cwd: repo, env: { NEO_HOME: home } });
    expect(result.exitCode, result.stderr).toBe(0);
    const work = await stepOf(home, await onlyRunId(home));
    const diff = work.outputs!.diff!;
    expect(diff.files.map((f) => `${f.status} ${f.path}`)).toEqual(['M a.txt', 'R bee.txt', 'A done']);
    expect(diff.unified).not.toContain('scratch.txt');
    expect(diff.unified.match(/^diff --git a\/a\.txt/gm)).toHaveLength(1);
    const patch = join(await tempDir('neo-patch-'), 'step.patch');
    await writeFile(patch, diff.unified);
    // The user's checkout is still at the step's base: the patch applies there, and re-creates the result.
    await execa('git', ['apply', '--check', patch], { cwd: repo });
    await execa('git', ['apply', patch], { cwd: repo });
    expect(await readFile(join(repo, 'a.txt'), 'utf8')).toBe('one\nTWO\nTHREE\n');
  });
});

describe('neo flow resume: a step killed after it edited is measured from its base', () => {
  it('succeeds instead of FLOW_NO_CHANGE when the resumed attempt finds its work already done', async () => {
    const { repo, home } = await repoWith({
      '.gitignore': '.attempted\n',
      'plan.yaml': agentPlan('slow.yaml'),
      // The first attempt writes the fix, then works on (and is killed); a resumed one finds it done.
      'slow.yaml': `turns:
  - - write: { path: fix.txt, content: "fixed\\n" }
    - run: { command: "if [ -f .attempted ]; then exit 0; fi; touch .attempted; sleep 600" }
    - say: Done.
`,
    });
    const child = spawnNeo(['flow', 'run', 'plan.yaml'], { cwd: repo, home });
    const worktrees = join(home, 'worktrees');
    await waitFor(worktrees);
    let runId: string | undefined;
    for (const until = Date.now() + 30_000; runId === undefined && Date.now() < until; await sleep(50))
      runId = (await readdir(worktrees))[0];
    await waitFor(join(worktrees, runId!, '.attempted'));
    child.kill('SIGKILL');
    await child;

    const resumed = await runNeo(['flow', 'resume', runId!], { cwd: repo, env: { NEO_HOME: home } });
    expect(resumed.exitCode, resumed.stdout + resumed.stderr).toBe(0);
    const work = await stepOf(home, runId!);
    expect(work).toMatchObject({ status: 'succeeded', verdict: 'success' });
    expect(work.outputs!.diff!.files).toEqual([{ path: 'fix.txt', status: 'A', insertions: 1, deletions: 0 }]);
  });
});

describe('neo flow run: an agent that writes outside its workspace fails loudly', () => {
  it('a command at full posture that writes into the user’s checkout: FLOW_ESCAPE naming the path', async () => {
    const { repo, home } = await repoWith({
      'plan.yaml': agentPlan('escape.yaml'),
      'escape.yaml': `turns:
  - - write: { path: inside.txt, content: "fine\\n" }
    - run: { command: "echo pwned > '${'$'}{NEO_TEST_CHECKOUT}/escaped.txt'" }
    - say: Done.
`,
    });
    await writeFile(
      join(repo, 'escape.yaml'),
      (await readFile(join(repo, 'escape.yaml'), 'utf8')).replace('${NEO_TEST_CHECKOUT}', repo),
    );
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qam', 'script');
    const result = await runNeo(['flow', 'run', 'plan.yaml'], { cwd: repo, env: { NEO_HOME: home } });
    expect(result.exitCode).not.toBe(0);
    const runId = await onlyRunId(home);
    const work = await stepOf(home, runId);
    expect(work).toMatchObject({ status: 'failed', verdict: 'escaped', error: { code: 'FLOW_ESCAPE' } });
    expect(work.error!.message).toContain(join(repo, 'escaped.txt'));
    expect(work.error!.message).toMatch(/^the agent changed 1 path outside its workspace/);
    const events = await readEvents(home, runId);
    expect(events.find((e) => e.type === 'step.completed')).toMatchObject({
      status: 'failed',
      error: { code: 'FLOW_ESCAPE' },
    });
    expect(result.stdout + result.stderr).toContain('FLOW_ESCAPE');
  });

  it('a CLI that writes outside without asking (Droid at acceptEdits): caught from its tool event', async () => {
    const { repo, home } = await repoWith({
      'plan.yaml': `
name: droid
defaults: { backend: droid, maxPosture: acceptEdits, maxRounds: 2 }
steps:
  - id: work
    brief: Write hello.txt.
    requireChange: false
`,
    });
    const elsewhere = join(await tempDir('neo-elsewhere-'), 'outside.txt');
    const result = await runNeo(['flow', 'run', 'plan.yaml'], {
      cwd: repo,
      env: {
        NEO_HOME: home,
        NEO_DROID_BIN: fakeWithEnv(
          FAKE_BINARIES.acp,
          {
            FAKE_ACP_MODES: 'normal,spec,auto-low,auto-medium,auto-high',
            FAKE_CLI_HOME: join(home, 'fake-state'),
            FAKE_CLI_BEHAVIOUR: 'silent-write',
            FAKE_CLI_WRITE_TO: elsewhere,
          },
          await tempDir('neo-fake-bin-'),
        ),
        FACTORY_API_KEY: 'fk-test',
      },
    });
    expect(await readFile(elsewhere, 'utf8')).toBe('hello from fake acp\n');
    expect(result.exitCode).not.toBe(0);
    const work = await stepOf(home, await onlyRunId(home));
    expect(work).toMatchObject({ status: 'failed', verdict: 'escaped', error: { code: 'FLOW_ESCAPE' } });
    expect(work.error!.message).toContain(elsewhere);
    // Outside the watched trees, only the tool's own report names it: said as such, not as seen.
    expect(work.error!.message).toMatch(/^the agent's edit tool reported writing 1 path outside its workspace/);
  });
});

describe('NEO_HOME inside a git repository (a dotfiles home)', () => {
  it("a copy workspace's diff holds the agent's file, never neo's own records nor the dotfiles", async () => {
    const root = await tempDir('neo-dotfiles-');
    const dotfiles = join(root, 'user');
    await writeTree(dotfiles, { '.bashrc': 'export X=1\n' });
    await git(dotfiles, 'init', '-q', '-b', 'main');
    await git(dotfiles, 'add', '-A');
    await git(dotfiles, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'dotfiles');
    const home = join(dotfiles, '.neo');
    const project = join(root, 'project');
    await writeTree(project, {
      'plan.yaml': agentPlan('writes.yaml'),
      'writes.yaml': 'turns:\n  - - write: { path: out.txt, content: "done\\n" }\n    - say: Done.\n',
    });
    const result = await runNeo(['flow', 'run', 'plan.yaml'], { cwd: project, env: { NEO_HOME: home } });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const work = await stepOf(home, await onlyRunId(home));
    expect(work.outputs!.diff!.files).toEqual([{ path: 'out.txt', status: 'M' }]);
  });
});

describe('NEO_HOME inside the project folder', () => {
  it("a copy workspace outside git: neo's own records changing in the project are no escape", async () => {
    const project = join(await tempDir('neo-home-inside-'), 'project');
    await writeTree(project, {
      'plan.yaml': agentPlan('writes.yaml'),
      'writes.yaml': 'turns:\n  - - write: { path: out.txt, content: "done\\n" }\n    - say: Done.\n',
    });
    const home = join(project, '.neo');
    const result = await runNeo(['flow', 'run', 'plan.yaml'], { cwd: project, env: { NEO_HOME: home } });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const work = await stepOf(home, await onlyRunId(home));
    expect(work).toMatchObject({ status: 'succeeded', verdict: 'success' });
    expect(work.outputs!.diff!.files).toEqual([{ path: 'out.txt', status: 'M' }]);
  });

  it("an agent that rewrites NEO_HOME's user layer there is still caught", async () => {
    const project = join(await tempDir('neo-home-inside-'), 'project');
    const home = join(project, '.neo');
    await writeTree(project, {
      'plan.yaml': agentPlan('raises.yaml'),
      'raises.yaml': `turns:\n  - - run: { command: "echo 'maxPosture: full' > ${join(home, 'policy.yaml')}" }\n    - say: Done.\n`,
    });
    const result = await runNeo(['flow', 'run', 'plan.yaml'], { cwd: project, env: { NEO_HOME: home } });
    expect(result.exitCode).not.toBe(0);
    const work = await stepOf(home, await onlyRunId(home));
    expect(work).toMatchObject({ status: 'failed', error: { code: 'FLOW_ESCAPE' } });
    expect(work.error!.message).toContain(join(home, 'policy.yaml'));
  });
});

describe('neo flow run: the paths of a step’s diff', () => {
  const plan = `
name: paths
defaults: { backend: script, maxPosture: full, posture: full, maxRounds: 2 }
steps:
  - id: work
    brief: Do it.
    script: s.yaml
    cwd: sub
`;
  const script = `turns:
  - - write: { path: new.txt, content: "new\\n" }
    - edit: { path: a.txt, search: "one", replace: "ONE" }
    - say: Done.
`;
  const modes = [
    { isolation: 'worktree', git: true },
    { isolation: 'inplace', git: true },
    { isolation: 'copy', git: true },
    { isolation: 'inplace', git: false },
    { isolation: 'copy', git: false },
  ] as const;

  it.each(modes)(
    'are relative to the workspace root ($isolation, git: $git), whatever the step’s cwd',
    async (mode) => {
      const files = { 'plan.yaml': plan, 's.yaml': script, 'sub/a.txt': 'one\n' };
      let repo: string;
      let home: string;
      if (mode.git) ({ repo, home } = await repoWith(files));
      else {
        const root = await tempDir('neo-paths-');
        repo = join(root, 'project');
        home = join(root, 'home');
        await writeTree(repo, files);
      }
      const result = await runNeo(['flow', 'run', 'plan.yaml', '--isolation', mode.isolation], {
        cwd: repo,
        env: { NEO_HOME: home },
      });
      expect(result.exitCode, result.stdout + result.stderr).toBe(0);
      const work = await stepOf(home, await onlyRunId(home));
      expect(work.outputs!.diff!.files.map((f) => f.path)).toEqual(['sub/a.txt', 'sub/new.txt']);
    },
  );
});

describe('neo flow run: a large step diff and a plain mv', () => {
  it('the truncation marker gives the whole diff’s size, and an untracked file moved is a rename', async () => {
    const { repo, home } = await repoWith({
      'plan.yaml': agentPlan('big.yaml'),
      'big.yaml': `turns:
  - - run: { command: "i=0; while [ $i -lt 2000 ]; do printf 'line %06d of a long generated file for the truncation check\\\\n' $i; i=$((i+1)); done > big.txt; mv untracked.txt moved.txt" }
    - say: Done.
`,
    });
    await writeFile(join(repo, 'untracked.txt'), 'an untracked file\nwith two lines\n');
    const result = await runNeo(['flow', 'run', 'plan.yaml', '--isolation', 'inplace'], {
      cwd: repo,
      env: { NEO_HOME: home },
    });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect((await readFile(join(repo, 'big.txt'))).length).toBe(124_000);
    const diff = (await stepOf(home, await onlyRunId(home))).outputs!.diff!;
    expect(diff.files.map((f) => `${f.status} ${f.oldPath ?? ''}${f.path}`)).toEqual([
      'A big.txt',
      'R untracked.txtmoved.txt',
    ]);
    expect(diff.truncated).toBe(true);
    // 2000 lines of 62 bytes, each with its "+", and the headers: about 123 KB.
    expect(diff.unified).toMatch(/\n… diff truncated at 64 KB of 12[34] KB\n$/);
    expect(Buffer.byteLength(diff.unified)).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('neo flow run in place: an edit that would become a command through git', () => {
  it('a CLI that writes a git hook without asking (Droid at acceptEdits) fails the step with FLOW_ESCAPE', async () => {
    const { repo, home } = await repoWith({
      'plan.yaml': `
name: droid
defaults: { backend: droid, maxPosture: acceptEdits, maxRounds: 2 }
steps:
  - id: work
    brief: Write hello.txt.
    requireChange: false
`,
    });
    const hook = join(repo, '.git', 'hooks', 'post-commit');
    const result = await runNeo(['flow', 'run', 'plan.yaml', '--isolation', 'inplace'], {
      cwd: repo,
      env: {
        NEO_HOME: home,
        NEO_DROID_BIN: fakeWithEnv(
          FAKE_BINARIES.acp,
          {
            FAKE_ACP_MODES: 'normal,spec,auto-low,auto-medium,auto-high',
            FAKE_CLI_HOME: join(home, 'fake-state'),
            FAKE_CLI_BEHAVIOUR: 'silent-write',
            FAKE_CLI_WRITE_TO: hook,
          },
          await tempDir('neo-fake-bin-'),
        ),
        FACTORY_API_KEY: 'fk-test',
      },
    });
    expect(await readFile(hook, 'utf8')).toBe('hello from fake acp\n');
    expect(result.exitCode).not.toBe(0);
    const work = await stepOf(home, await onlyRunId(home));
    expect(work).toMatchObject({ status: 'failed', verdict: 'escaped', error: { code: 'FLOW_ESCAPE' } });
    expect(work.error!.message).toContain('git metadata');
    expect(work.error!.message).toContain(hook);
  });
});
