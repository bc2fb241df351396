/**
 * The `neo` binary holds V8's young generation near its start-up size (cli/boot/heap-flags.ts):
 * over many steps of a run V8 doubled it up to 8 MB a semi-space, 16 MB of a 100-step run's peak
 * RSS, for garbage a small one collects as well. Measured from inside the process (a preloaded
 * probe, as bench/flow.ts measures RSS): V8 starts with a 1 MB new space and still grows it once,
 * to 2 MB; without the hold, 60 steps grew it to 16 MB.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEO_BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const STEPS = 60;

describe('the young generation of a run', () => {
  it(`stays at its start-up size over ${STEPS} sequential steps`, async () => {
    const dir = await tempDir('neo-e2e-young-');
    const steps = Array.from(
      { length: STEPS },
      (_, i) => `  - { id: s${i}, run: "true"${i > 0 ? `, needs: [s${i - 1}]` : ''} }`,
    );
    writeFileSync(
      join(dir, 'plan.yaml'),
      `name: many\nworkspace: { isolation: inplace }\nsteps:\n${steps.join('\n')}\n`,
    );
    const out = join(dir, 'new-space.json');
    const probe = join(dir, 'probe.cjs');
    writeFileSync(
      probe,
      [
        "const v8 = require('node:v8');",
        "const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;",
        'const start = newSpace();',
        `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ start, end: newSpace() })));`,
      ].join('\n'),
    );
    execFileSync(process.execPath, ['-r', probe, NEO_BIN, 'flow', 'run', 'plan.yaml'], {
      cwd: dir,
      env: { ...process.env, NEO_HOME: join(dir, 'home') },
      stdio: 'ignore',
    });
    const { start, end } = JSON.parse(readFileSync(out, 'utf8')) as { start: number; end: number };
    expect(end).toBeLessThanOrEqual(2 * start);
  });
});
