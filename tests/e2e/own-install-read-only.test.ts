/**
 * neo installed in the project (`npm install neo-flow`, run as `npx neo`): its package, its
 * dependencies and the `.bin/neo` link lie in the checkout's node_modules, which an `inplace`
 * run's confined steps write. A step that rewrote neo's code there ran it, unconfined, at the
 * user's next `npx neo`. neo's install tree (the outermost node_modules holding its package) is
 * shown read-only in every sandbox whose workspace holds it (engine/execution/own-install.ts).
 */
import { cp, mkdir, readFile, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../helpers/temp.js';
import { commitAll } from '../helpers/git.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe("neo's own install inside an inplace workspace", () => {
  it('is read-only to a confined step: its code, its dependencies and the .bin link stay as installed', async () => {
    const root = await tempDir('neo-e2e-own-install-');
    const repo = join(root, 'repo');
    const attempt = (what: string, shell: string) =>
      `  - { id: ${what}, run: '(${shell}) 2>/dev/null && echo wrote >> tried || echo refused >> tried' }`;
    await writeTree(repo, {
      '.gitignore': 'node_modules/\ntried\n',
      'plan.yaml': [
        'name: rewrite-neo',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'steps:',
        attempt('code', 'echo "//x" >> node_modules/neo-flow/dist/bin/neo.js'),
        attempt('link', 'ln -sf /bin/true node_modules/.bin/neo'),
        attempt('dependency', 'echo x > node_modules/yaml-planted.js'),
        '',
      ].join('\n'),
    });
    // A project-local install: neo's package (its dist copied), its dependencies beside it.
    const pkg = join(repo, 'node_modules', 'neo-flow');
    await mkdir(join(pkg, 'dist'), { recursive: true });
    await cp(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    await cp(join(ROOT, 'dist', 'bin'), join(pkg, 'dist', 'bin'), { recursive: true });
    for (const dir of ['definitions', 'schemas', 'personas']) await symlink(join(ROOT, dir), join(pkg, dir));
    await symlink(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
    await mkdir(join(repo, 'node_modules', '.bin'));
    await symlink('../neo-flow/dist/bin/neo.js', join(repo, 'node_modules', '.bin', 'neo'));
    await commitAll(repo);
    const before = await readFile(join(pkg, 'dist', 'bin', 'neo.js'), 'utf8');

    const run = await execa(process.execPath, [join(repo, 'node_modules', '.bin', 'neo'), 'flow', 'run', 'plan.yaml'], {
      cwd: repo,
      env: {
        NEO_HOME: join(root, 'home'),
        HOME: root,
        NO_COLOR: '1',
        PATH: `${join(repo, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
      },
      reject: false,
    });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(await readFile(join(repo, 'tried'), 'utf8')).toBe('refused\nrefused\nrefused\n');
    expect(await readFile(join(pkg, 'dist', 'bin', 'neo.js'), 'utf8')).toBe(before);
    expect(await readlink(join(repo, 'node_modules', '.bin', 'neo'))).toBe('../neo-flow/dist/bin/neo.js');
  });
});
