import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

/** A committed git repo holding `files`, and its own NEO_HOME. */
async function repoWith(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-exit-');
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  await writeTree(repo, { 'README.md': 'hello\n', ...files });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return { repo, home };
}

/** A one-agent-step flow on the script backend. */
const agentFlow = (name: string, script: string, extra = '') =>
  `name: ${name}\ndefaults: { backend: script, maxPosture: acceptEdits }\nsteps:\n  - id: work\n    brief: do the work\n    script: ${script}\n${extra}`;

const WRITES = 'turns:\n  - actions:\n      - write: { path: note.txt, content: "a note\\n" }\n';

/** The `summary` (or `error`) line of a --json run. */
function lastLine(stdout: string): { type: string; cause: string | null; exitCode: number; status?: string } {
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as never;
}

describe('each class of failure exits with its own code, and --json names the same cause', () => {
  it('gate failed 3, no change 6, agent stalled 5, command failed 1, bad input 2, success 0', async () => {
    const { repo, home } = await repoWith({
      'writes.yaml': WRITES,
      'silent.yaml': 'turns:\n  - actions:\n      - say: nothing to do here\n',
      'hangs.yaml': 'turns:\n  - actions:\n      - say: thinking\n      - hang: {}\n',
      'gate.flow.yaml': agentFlow('gate', 'writes.yaml', '    verify: { run: "false", attempts: 1 }\n'),
      'nochange.flow.yaml': agentFlow('nochange', 'silent.yaml'),
      'stall.flow.yaml': agentFlow('stall', 'hangs.yaml', '    idleTimeout: 1s\n'),
      'command.flow.yaml': 'name: command\nsteps:\n  - { id: s, run: "exit 7" }\n',
      'inputs.flow.yaml': 'name: inputs\ninputs: { n: { type: number } }\nsteps:\n  - { id: s, run: "true" }\n',
      'ok.flow.yaml': agentFlow('ok', 'writes.yaml'),
      'parent.flow.yaml': 'name: parent\nsteps:\n  - { id: child, flow: gate.flow.yaml }\n',
    });
    const run = (...args: string[]) =>
      runNeo(['flow', 'run', ...args, '--json'], { cwd: repo, env: { NEO_HOME: home } });
    const cases: Array<[string[], number, string | null]> = [
      [['gate.flow.yaml'], 3, 'FLOW_GATE_FAILED'],
      [['nochange.flow.yaml'], 6, 'FLOW_NO_CHANGE'],
      [['stall.flow.yaml'], 5, 'FLOW_STEP_STALLED'],
      [['command.flow.yaml'], 1, 'FLOW_COMMAND_FAILED'],
      [['parent.flow.yaml'], 3, 'FLOW_GATE_FAILED'],
      [['inputs.flow.yaml', '--input', 'n=many'], 2, 'FLOW_INPUT_TYPE'],
      [['ok.flow.yaml'], 0, null],
    ];
    for (const [args, code, cause] of cases) {
      const result = await run(...args);
      expect([args[0], result.exitCode], result.stderr).toEqual([args[0], code]);
      expect(lastLine(result.stdout), args[0]).toMatchObject({ cause, exitCode: code });
    }
  });

  it('`neo flow run --help` lists every exit code', async () => {
    const help = await runNeo(['flow', 'run', '--help']);
    expect(help.exitCode).toBe(0);
    const table = help.stdout.slice(help.stdout.indexOf('Exit codes:'));
    expect(table.split('\n').map((line) => line.trim().split(/\s+/)[0])).toEqual([
      'Exit',
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '70',
      '130',
    ]);
  });
});
