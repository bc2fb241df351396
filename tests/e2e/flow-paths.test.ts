/**
 * Paths checked before a run starts: a step's `script:` that names no file is a located
 * definition error for `neo flow validate`, `neo validate` and `--dry-run` (nothing runs, no
 * worktree); none at all refuses the run before it starts; one known only at run time fails
 * with a hint that says where a flow's script is read from; `--dry-run` says when the flow's backend is not installed here.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';

async function repo(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-paths-');
  const dir = join(root, 'repo');
  const home = join(root, 'home');
  await writeTree(dir, { 'src/a.txt': 'a\n', ...files });
  await commitAll(dir);
  const neo = (args: string[], env: Record<string, string> = {}) =>
    runNeo(args, { cwd: dir, env: { NEO_HOME: home, ...env } });
  return { dir, home, neo };
}

const FLOW = (script: string, extra = '') => `name: fix
defaults: { backend: script }
steps:
  - id: fix
    brief: fix it
${extra}    script: ${script}
    requireChange: false
`;

describe('a step script that names no file', () => {
  it('is a located definition error for validate and --dry-run, before anything runs', async () => {
    const { home, neo } = await repo({
      '.neo/flows/fix.flow.yaml': FLOW('scripts/fix.yaml'),
      // Beside the repository's root, not beside the plan: the plan's folder is what counts.
      'scripts/fix.yaml': 'turns:\n  - - say: hi\n',
    });
    const where = '.neo/flows/fix.flow.yaml:6:13: error[DEF_SCRIPT_NOT_FOUND]';
    const message = 'step `fix` plays script scripts/fix.yaml, which is not a file';
    const validate = await neo(['flow', 'validate', '.neo/flows/fix.flow.yaml']);
    expect(validate.exitCode).toBe(2);
    expect(validate.stderr).toContain(`${where}: ${message}`);
    expect(validate.stderr).toContain(
      "a step's `script:` is relative to the plan's folder (.neo/flows): write the file there, or fix the path",
    );
    const all = await neo(['validate']);
    expect(all.exitCode).toBe(2);
    expect(all.stdout + all.stderr).toContain(where);
    const dry = await neo(['flow', 'run', '.neo/flows/fix.flow.yaml', '--dry-run']);
    expect(dry.exitCode).toBe(2);
    expect(dry.stderr).toContain(where);
    const run = await neo(['flow', 'run', '.neo/flows/fix.flow.yaml']);
    expect(run.exitCode).toBe(2);
    expect(existsSync(join(home, 'worktrees'))).toBe(false);
  });

  it('one that does not validate is a located error at the field, naming its first problem, before anything runs', async () => {
    const { home, neo } = await repo({
      '.neo/flows/fix.flow.yaml': FLOW('scripts/fix.yaml'),
      '.neo/flows/scripts/fix.yaml': 'turns:\n  - - run: "npm test"\n',
    });
    const where = '.neo/flows/fix.flow.yaml:6:13: error[DEF_SCRIPT_INVALID]';
    const message =
      'step `fix` plays script scripts/fix.yaml, which is invalid: .neo/flows/scripts/fix.yaml:2:12: `turns[0][0].run` must be a map; got a string';
    const validate = await neo(['flow', 'validate', '.neo/flows/fix.flow.yaml']);
    expect(validate.exitCode).toBe(2);
    expect(validate.stderr).toContain(`${where}: ${message}`);
    expect(validate.stderr).toContain(
      'run `neo script validate .neo/flows/scripts/fix.yaml` for every problem with a code frame',
    );
    const all = await neo(['validate']);
    expect(all.exitCode).toBe(2);
    expect(all.stdout + all.stderr).toContain(where);
    const run = await neo(['flow', 'run', '.neo/flows/fix.flow.yaml']);
    expect(run.exitCode).toBe(2);
    expect(existsSync(join(home, 'worktrees'))).toBe(false);
    // The script itself named to `neo validate`: the command that checks scripts is named.
    const direct = await neo(['validate', '.neo/flows/scripts/fix.yaml']);
    expect(direct.exitCode).toBe(2);
    expect(direct.stdout + direct.stderr).toContain(
      'a script for the script backend (`turns:`) is checked by `neo script validate .neo/flows/scripts/fix.yaml`',
    );
  });

  it('none at all, under --backend script, refuses the run before it starts, saying where a flow names its script', async () => {
    const { home, neo } = await repo({
      'plan.yaml': 'name: fix\nsteps:\n  - { id: fix, brief: fix it, requireChange: false }\n',
    });
    const run = await neo(['flow', 'run', 'plan.yaml', '--backend', 'script']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      'error[FLOW_BACKEND_UNAVAILABLE]: fix: step `fix` runs on the script backend and names no `script:` to play',
    );
    expect(run.stderr).toContain(
      "hint: give the step `script: <file>` (a YAML script the backend plays, relative to the plan's folder)",
    );
    expect(run.stderr).not.toContain('backendOptions');
    expect(existsSync(join(home, 'worktrees'))).toBe(false);
  });

  it('known only at run time, fails the step with where a flow reads it from', async () => {
    const { neo } = await repo({
      'plan.yaml': FLOW('scripts/${{ inputs.name }}.yaml').replace(
        'steps:',
        'inputs: { name: { default: one } }\nsteps:',
      ),
    });
    const run = await neo(['flow', 'run', 'plan.yaml']);
    expect(run.exitCode).toBe(5);
    expect(run.stdout).toContain('TRANSPORT_SCRIPT_NOT_FOUND');
    expect(run.stdout).toContain(
      "hint: a flow step's `script:` is relative to the plan's folder; `neo session start --script` and `neo script play` read it from the working directory",
    );
    expect(run.stdout).not.toContain('backendOptions');
  });
});

describe('a script kept with the flows', () => {
  it('beside the flow is one clear error that says where it goes; in a scripts/ folder it is played and not warned about', async () => {
    const script = 'turns:\n  - - say: hi\n';
    const { neo } = await repo({ '.neo/flows/fix.flow.yaml': FLOW('fix.yaml'), '.neo/flows/fix.yaml': script });
    const beside = await neo(['validate']);
    expect(beside.exitCode).toBe(2);
    expect(beside.stderr.match(/error\[/g)).toHaveLength(1);
    expect(beside.stderr).toContain(
      '.neo/flows/fix.yaml:1:1: error[DEF_SCRIPT_IN_FLOWS]: this is a script for the script backend (`turns:`), not a flow, in a folder neo reads flows from',
    );
    expect(beside.stderr).toContain('hint: move it to a subfolder (`scripts/fix.yaml` beside the flow)');
    const moved = await repo({
      '.neo/flows/fix.flow.yaml': FLOW('scripts/fix.yaml'),
      '.neo/flows/scripts/fix.yaml': script,
    });
    const validate = await moved.neo(['validate']);
    expect(validate.exitCode, validate.stderr).toBe(0);
    expect(validate.stdout + validate.stderr).not.toContain('warning');
    const run = await moved.neo(['flow', 'run', '.neo/flows/fix.flow.yaml']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
  });
});

describe('--dry-run and the backend binary', () => {
  it('says when the flow’s backend is not installed here, with how to install it', async () => {
    const { neo } = await repo({
      'plan.yaml': 'name: real\ndefaults: { backend: claude-code }\nsteps:\n  - { id: a, brief: do it }\n',
    });
    const dry = await neo(['flow', 'run', 'plan.yaml', '--dry-run'], {
      PATH: '/usr/bin:/bin',
      NEO_CLAUDE_CODE_BIN: '',
    });
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain(
      'warning: backend claude-code is not available here: "claude" not found\n  hint: install: npm install -g @anthropic-ai/claude-code; or set NEO_CLAUDE_CODE_BIN',
    );
    const json = await neo(['flow', 'run', 'plan.yaml', '--dry-run', '--json'], {
      PATH: '/usr/bin:/bin',
      NEO_CLAUDE_CODE_BIN: '',
    });
    expect(JSON.parse(json.stdout).backends).toEqual([
      expect.objectContaining({ id: 'claude-code', available: false, status: 'missing' }),
    ]);
  });
});
