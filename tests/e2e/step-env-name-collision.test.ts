/**
 * A step's results reach a later command as NEO_STEP_<ID>_<OUTPUT>, the id upper-cased with
 * every other character an underscore: steps `a-b` and `a_b` (or `a.b`, `A_B`) share the names,
 * so the one listed last in `needs` replaced the other's STATUS and outputs — a failed step read
 * as succeeded by a finally's deploy. Two such ids are refused when the flow is compiled, naming
 * both steps and where they are, by `neo validate` and `neo flow run` alike (before anything runs).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const FLOW = [
  'name: collide',
  'steps:',
  "  - { id: a-b, run: 'exit 3', continueOnError: true }",
  "  - { id: a_b, run: 'touch ran' }",
  '  - { id: c, needs: [a-b, a_b], run: \'echo "$NEO_STEP_A_B_STATUS"\' }',
  '',
].join('\n');

describe('step ids that map to the same variables', () => {
  it.each([['validate'], ['flow', 'run']])('are refused by neo %s, naming both steps', async (...command) => {
    const dir = await tempDir('neo-e2e-step-env-');
    await writeTree(dir, { 'collide.flow.yaml': FLOW });
    const result = await runNeo([...command, 'collide.flow.yaml'], {
      cwd: dir,
      env: { NEO_HOME: join(dir, 'neo-home'), HOME: dir },
    });
    const text = result.stdout + result.stderr;
    expect(result.exitCode, text).not.toBe(0);
    expect(text).toContain('DEF_STEP_ENV_NAME');
    expect(text).toMatch(/collide\.flow\.yaml:4:\d+/);
    expect(text).toContain('`a_b`');
    expect(text).toContain('`a-b`');
    expect(text).toContain('NEO_STEP_A_B_');
    expect(text).not.toContain('workspace ');
  });
});
