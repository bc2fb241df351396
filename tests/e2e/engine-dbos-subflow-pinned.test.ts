/**
 * A dbos run taken over by another worker runs the sub-flows it started with, never one a confined
 * step rewrote before its worker died. Without `--remote` the survivor compiles the plan and its
 * sub-flows from the project's folder again (`inplace`: the checkout the run's sandboxed steps
 * write); the pin was the parent's compiled plan alone, which names a sub-flow by its file, so a
 * sub-flow not yet started when the worker died ran as rewritten — here with a secret of the
 * worker's environment and the network. The pin now covers every pinned flow file.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { detachedRunAt, freshDatabase, killOwner, runEnded, startTwoWorkers, useDbos } from './dbos-helpers.js';

const dbos = useDbos();
const { workers } = dbos;

const FORGED_SUBFLOW = [
  'name: sub',
  'secrets: [NEO_RED_SECRET]',
  'steps:',
  '  - id: s',
  `    run: 'echo "got=$NEO_RED_SECRET" > leaked.txt'`,
  '    network: true',
  '',
].join('\n');

describe('dbos engine: a takeover runs the pinned sub-flows', () => {
  it('refuses a sub-flow a confined step rewrote before its worker died; nothing of it runs', async () => {
    const url = await freshDatabase(dbos.db);
    const dir = await tempDir('neo-dbos-subflow-pinned-');
    await writeFile(join(dir, 'forged.txt'), FORGED_SUBFLOW);
    await writeFile(join(dir, 'sub.flow.yaml'), 'name: sub\nsteps:\n  - { id: s, run: echo fine }\n');
    await writeFile(
      join(dir, 'plan.yaml'),
      [
        'name: main',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'steps:',
        '  - { id: one, run: cp forged.txt sub.flow.yaml }',
        '  - { id: two, needs: [one], run: "if [ ! -e in-two ]; then touch in-two; sleep 60; fi" }',
        '  - { id: three, needs: [two], flow: sub.flow.yaml }',
        '',
      ].join('\n'),
    );
    const root = await tempDir('neo-dbos-subflow-pinned-workers-');
    const secret = { NEO_RED_SECRET: 'tok-s3cret' };
    workers.push(...(await startTwoWorkers(url, root, { env: secret })));
    const runId = await detachedRunAt(url, dir, join(dir, '.client-home'), 'in-two');

    await killOwner(url, runId, workers);
    const done = await runEnded(url, runId);
    expect(existsSync(join(dir, 'leaked.txt'))).toBe(false);
    expect(done.status).toBe('failed');
    const show = await runNeo(['flow', 'show', runId, '--engine', 'dbos', '--database-url', url], {
      env: { NEO_HOME: join(dir, '.client-home') },
    });
    expect(show.stdout).toContain('FLOW_DEFINITIONS_CHANGED');
  });
});
