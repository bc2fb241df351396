/**
 * An invalid neo.yaml is bad input, said before anything runs: the loader leaves it out of the
 * definitions, so a run went on without its settings and an agent step then failed with "no model
 * provider is configured", naming neither the file nor the problem. Checked with the plan's
 * compiled form already cached (the cache skips the plan's own check).
 */
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

describe('flow run with an invalid neo.yaml', () => {
  it('fails with one usage error naming the file, line and fix; nothing runs', async () => {
    const root = await tempDir('neo-e2e-settings-');
    const home = join(root, 'home');
    const repo = join(root, 'repo');
    await writeTree(repo, {
      'plan.yaml': 'name: p\nworkspace: { isolation: inplace }\nsteps:\n  - { id: a, run: touch ran }\n',
    });
    await writeTree(home, { 'neo.yaml': 'agent:\n  maxTurns: 5\n' });
    const neo = () => runNeo(['flow', 'run', 'plan.yaml'], { cwd: repo, env: { NEO_HOME: home } });
    // A clean first run caches the compiled plan.
    expect((await neo()).exitCode).toBe(0);
    await writeFile(
      join(home, 'neo.yaml'),
      'providers:\n  mine:\n    api: anthropic\n    apiKey: sk-literal\nagent:\n  provider: mine\n',
    );
    await rm(join(repo, 'ran'));

    const broken = await neo();
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toContain('FLOW_PLAN_INVALID');
    expect(broken.stderr).toContain(`${join(home, 'neo.yaml')}:4:`);
    expect(broken.stderr).toContain('providers.mine.apiKey');
    expect(broken.stderr).toContain('a literal key is an error');
    expect(existsSync(join(repo, 'ran'))).toBe(false);
  });
});
