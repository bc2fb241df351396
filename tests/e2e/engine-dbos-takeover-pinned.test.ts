/**
 * A dbos run taken over by another worker runs the plan it started with, never one a confined
 * step left in the project. Without `--remote` a worker reads the plan and its definitions from
 * the enqueuer's folder (`inplace`: the checkout its sandboxed steps write); a step that rewrites
 * the plan (a later step turned into one that writes outside its bounds) and then loses its
 * worker must not have the rewrite run by the survivor: the takeover refuses it, nothing of it runs.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { detachedRunAt, freshDatabase, killOwner, runEnded, startTwoWorkers, useDbos } from './dbos-helpers.js';

const dbos = useDbos();
const { workers } = dbos;

const plan = (three: string) => `name: pinned
sandbox: bwrap
workspace: { isolation: inplace }
steps:
  - { id: one, run: cp forged.txt plan.yaml }
  - id: two
    needs: [one]
    run: if [ ! -e in-two ]; then touch in-two; sleep 60; fi
  - id: three
    needs: [two]
    ${three}
`;

describe('dbos engine: a takeover runs the pinned plan', () => {
  it('refuses a plan a confined step rewrote before its worker died; nothing of the rewrite runs', async () => {
    const url = await freshDatabase(dbos.db);
    const dir = await tempDir('neo-dbos-pinned-');
    const outside = await tempDir('neo-dbos-pinned-outside-');
    await writeFile(join(dir, 'plan.yaml'), plan('run: touch three-ran'));
    await writeFile(join(dir, 'forged.txt'), plan(`sandbox: none\n    run: touch ${outside}/escaped`));
    const root = await tempDir('neo-dbos-pinned-workers-');
    workers.push(...(await startTwoWorkers(url, root)));
    const runId = await detachedRunAt(url, dir, join(dir, '.client-home'), 'in-two');
    // The confined step did rewrite the plan in the checkout.
    expect(await readFile(join(dir, 'plan.yaml'), 'utf8')).toContain('escaped');

    await killOwner(url, runId, workers);
    const done = await runEnded(url, runId);
    expect(done.status).toBe('failed');
    expect(existsSync(join(outside, 'escaped'))).toBe(false);
    expect(existsSync(join(dir, 'three-ran'))).toBe(false);
    const show = await runNeo(['flow', 'show', runId, '--engine', 'dbos', '--database-url', url], {
      env: { NEO_HOME: join(dir, '.client-home') },
    });
    expect(show.stdout).toContain('FLOW_DEFINITIONS_CHANGED');
    expect(show.stdout).toContain('plan.yaml');
  });
});
