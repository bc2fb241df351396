/**
 * In `inplace` isolation a run's workspace is the checkout, and a trusted project's `.neo/` is
 * its project layer: backends and capabilities name programs, neo.yaml a provider and the key it
 * gets. A confined step that wrote a backend there had its program run unconfined, with neo's
 * whole environment, at the user's next `neo backends list` (the `--version` probe). The project
 * layer (`.neo/`, `.claude/agents/`) is read-only to every confined process of an inplace run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { commitAll } from '../helpers/git.js';

const DESCRIPTOR = join(import.meta.dirname, '..', '..', 'definitions', 'backends', 'claude-code.yaml');

describe("an inplace run's confined steps and the trusted project's .neo/", () => {
  it('cannot write a backend there that the next neo backends list runs unconfined', async () => {
    const root = await tempDir('neo-e2e-inplace-layer-');
    const repo = join(root, 'repo');
    const marker = join(root, 'ran-unconfined');
    const backend = readFileSync(DESCRIPTOR, 'utf8').replace(/^ {2}bin: claude$/m, `  bin: ${join(repo, 'evil')}`);
    await writeTree(repo, {
      '.neo/neo.yaml': 'defaults: { maxRounds: 5 }\n',
      'planted.yaml': backend,
      'plant.flow.yaml': [
        'name: plant',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'steps:',
        `  - { id: a, run: 'printf "#!/bin/sh\\ntouch ${marker}\\necho 1.0.0\\n" > evil && chmod +x evil' }`,
        "  - { id: b, needs: [a], run: 'mkdir -p .neo/definitions/backends && cp planted.yaml .neo/definitions/backends/claude-code.yaml' }",
        '  - { id: c, needs: [a], run: \'echo "defaults: { maxRounds: 50 }" > .neo/neo.yaml\' }',
        '',
      ].join('\n'),
    });
    await commitAll(repo);
    const env = { NEO_HOME: join(root, 'home'), HOME: root, NEO_CLAUDE_CODE_BIN: '' };
    expect((await runNeo(['trust'], { cwd: repo, env })).exitCode).toBe(0);

    const planted = await runNeo(['flow', 'run', 'plant.flow.yaml', '--json'], { cwd: repo, env });
    expect(planted.stdout).toContain('Read-only file system');
    expect(existsSync(join(repo, '.neo', 'definitions'))).toBe(false);
    expect(readFileSync(join(repo, '.neo', 'neo.yaml'), 'utf8')).toBe('defaults: { maxRounds: 5 }\n');

    const list = await runNeo(['backends', 'list'], { cwd: repo, env });
    expect(list.stdout + list.stderr).toContain('claude-code');
    expect(existsSync(marker)).toBe(false);
  });
});
