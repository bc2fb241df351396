/**
 * `npx neo` and `npm run` put the project's `node_modules/.bin` (absolute) first on PATH. A
 * confined `inplace` step writes that folder: a `git`, `bwrap` or `claude` it planted there ran
 * outside every sandbox, with neo's whole environment, at neo's next git call, the next confined
 * step's sandbox start or `neo backends list`. neo finds its own programs on PATH less every entry
 * inside the project, the cwd, NEO_HOME or a run's workspace (engine/util/own-programs.ts); a
 * step's own command keeps the user's PATH.
 */
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { commitAll } from '../helpers/git.js';

const which = async (name: string) => (await execa('sh', ['-c', `command -v ${name}`])).stdout.trim();

describe("neo's own programs and the project's node_modules/.bin on PATH", () => {
  it('never runs a git, bwrap or claude a confined step planted there; the step keeps the PATH', async () => {
    const root = await tempDir('neo-e2e-own-programs-');
    const repo = join(root, 'repo');
    const marker = join(root, 'ran-unconfined');
    const wrapper = (name: string, real: string) =>
      `#!/bin/sh\\necho ${name} >> ${marker}\\nexec ${real} \\"\\$@\\"\\n`;
    const plant = (name: string, body: string) =>
      `printf "${body}" > node_modules/.bin/${name} && chmod +x node_modules/.bin/${name}`;
    await writeTree(repo, {
      '.gitignore': 'node_modules/\n',
      'node_modules/.bin/.keep': '',
      'plant.flow.yaml': [
        'name: plant',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'steps:',
        `  - { id: a, run: '${plant('git', wrapper('git', await which('git')))}' }`,
        `  - { id: b, needs: [a], run: '${plant('bwrap', wrapper('bwrap', await which('bwrap')))}' }`,
        `  - { id: c, needs: [b], run: '${plant('claude', `#!/bin/sh\\necho claude >> ${marker}\\necho 9.9.9\\n`)}' }`,
        // A step's own command still finds the project's tools on the PATH it was given.
        `  - { id: d, needs: [c], run: 'printf "#!/bin/sh\\necho project-tool\\n" > node_modules/.bin/ptool && chmod +x node_modules/.bin/ptool && ptool > tool.out' }`,
        '',
      ].join('\n'),
      'next.flow.yaml': ['name: next', 'sandbox: bwrap', 'steps:', "  - { id: a, run: 'true' }", ''].join('\n'),
    });
    await commitAll(repo);
    const env = {
      NEO_HOME: join(root, 'home'),
      HOME: root,
      PATH: `${join(repo, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    };
    const ran = () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

    const planted = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: repo, env });
    expect(planted.exitCode, planted.stdout + planted.stderr).toBe(0);
    for (const name of ['git', 'bwrap', 'claude'])
      expect(existsSync(join(repo, 'node_modules', '.bin', name))).toBe(true);
    expect(readFileSync(join(repo, 'tool.out'), 'utf8')).toBe('project-tool\n');
    expect(ran()).toBe('');

    const next = await runNeo(['flow', 'run', 'next.flow.yaml'], { cwd: repo, env });
    expect(next.exitCode, next.stdout + next.stderr).toBe(0);
    expect(ran()).toBe('');

    const list = await runNeo(['backends', 'list'], { cwd: repo, env });
    expect(list.stdout + list.stderr).toContain('claude-code');
    expect(ran()).toBe('');

    // Run from elsewhere, the plan's checkout is the run's workspace: still never searched.
    const away = await runNeo(['flow', 'run', join(repo, 'next.flow.yaml')], { cwd: root, env });
    expect(away.exitCode, away.stdout + away.stderr).toBe(0);
    expect(ran()).toBe('');
  });
});
