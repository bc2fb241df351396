/** One problem, one diagnostic: a line of 100,000 `[` is one "nests too deeply", not 787 lines. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

describe('a plan that nests past any limit', () => {
  it('gets one diagnostic from validate, flow validate and flow run', async () => {
    const root = await tempDir('neo-e2e-deep-');
    const env = { NEO_HOME: join(root, 'home') };
    await writeTree(root, { 'p/plan.yaml': `name: x\nsteps: ${'['.repeat(100_000)}\n` });
    const cwd = join(root, 'p');
    for (const args of [
      ['validate', 'plan.yaml'],
      ['flow', 'validate', 'plan.yaml'],
      ['flow', 'run', 'plan.yaml'],
    ]) {
      const result = await runNeo(args, { cwd, env });
      expect(result.exitCode, args.join(' ')).toBe(2);
      const said = `${result.stdout}\n${result.stderr}`.match(/error\[DEF_\w+\]/g);
      expect(said, args.join(' ')).toEqual(['error[DEF_YAML_TOO_DEEP]']);
    }
    const json = JSON.parse((await runNeo(['flow', 'validate', 'plan.yaml', '--json'], { cwd, env })).stdout) as {
      diagnostics: Array<{ code: string }>;
    };
    expect(json.diagnostics.map((d) => d.code)).toEqual(['DEF_YAML_TOO_DEEP']);
  });
});
