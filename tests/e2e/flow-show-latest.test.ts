/**
 * `neo flow show` and `neo flow logs` without a run id read the latest run, and say which on
 * stderr (stdout stays the run's, for a pipe); with no run yet, they say how to start one.
 * `neo flow list` says which project each run worked on.
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

describe('neo flow show / logs without a run id', () => {
  it('read the latest run, saying which; with none yet, say how to start one', async () => {
    const root = await tempDir('neo-e2e-latest-');
    const dir = join(root, 'project');
    const home = join(root, 'home');
    await writeTree(dir, {
      'plan.yaml': 'name: latest\nsteps:\n  - { id: one, run: "true" }\n',
    });
    const neo = (args: string[]) => runNeo(args, { cwd: dir, env: { NEO_HOME: home } });

    const none = await neo(['flow', 'show']);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain('error[FLOW_RUN_NOT_FOUND]: no run yet to show');
    expect(none.stderr).toContain('start one with `neo flow run plan.yaml`');
    const noLogs = await neo(['flow', 'logs']);
    expect(noLogs.exitCode).toBe(1);
    expect(noLogs.stderr).toContain('error[FLOW_RUN_NOT_FOUND]: no run yet to show');

    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const run = await neo(['flow', 'run', 'plan.yaml', '--json']);
      expect(run.exitCode).toBe(0);
      ids.push(JSON.parse(run.stdout.trim().split('\n')[0]!).runId as string);
    }
    const latest = ids[1]!;

    const show = await neo(['flow', 'show']);
    expect(show.exitCode).toBe(0);
    expect(show.stdout.split('\n')[0]).toContain(`${latest} · flow latest · succeeded`);
    expect(show.stderr).toBe(`showing the latest run, ${latest} (\`neo flow list\` lists the others)`);
    const json = await neo(['flow', 'show', '--json']);
    expect(JSON.parse(json.stdout).record.runId).toBe(latest);

    const logs = await neo(['flow', 'logs']);
    expect(logs.exitCode).toBe(0);
    expect(logs.stdout).toContain('flow_step_started');
    expect(logs.stderr).toBe(`showing the latest run, ${latest} (\`neo flow list\` lists the others)`);

    // `neo init` names every project's flow check-and-fix: the list says whose each run is.
    const list = await neo(['flow', 'list']);
    expect(list.stdout.split('\n')[0]).toMatch(/^RUN\s+FLOW\s+STATUS\s.*\sDISK\s+PROJECT$/);
    expect(list.stdout.split('\n')[1]).toMatch(new RegExp(`^${latest}\\s+latest\\s+succeeded\\s.*\\s\\.$`));
    const elsewhere = await runNeo(['flow', 'list'], { cwd: root, env: { NEO_HOME: home } });
    expect(elsewhere.stdout.split('\n')[1]).toMatch(new RegExp(`^${latest}\\s+latest\\s+succeeded\\s.*\\sproject$`));
    const listed = await neo(['flow', 'list', '--json']);
    expect(JSON.parse(listed.stdout)[0].projectDir).toBe(realpathSync(dir));

    // A named run is still the one shown, with no note.
    const named = await neo(['flow', 'show', ids[0]!]);
    expect(named.exitCode).toBe(0);
    expect(named.stdout.split('\n')[0]).toContain(ids[0]);
    expect(named.stderr).toBe('');
  });
});
