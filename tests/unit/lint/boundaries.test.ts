import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../engine/util/package-root.js';

// The project's own eslint.config.mjs, run on planted text: the file never exists on disk, the rules
// see only its path, so each case says what the config does to a file placed there.
const eslint = new ESLint({ cwd: packageRoot(), overrideConfig: { rules: { 'import-x/no-cycle': 'off' } } });

async function ruleIds(relPath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(packageRoot(), relPath) });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

describe('eslint import boundaries', () => {
  it('fails a node:fs import planted in engine/flow/core', async () => {
    const ids = await ruleIds(
      'engine/flow/core/planted.ts',
      "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
    );
    expect(ids).toEqual(['neo/pure-imports']);
  });

  it('fails execa, a bare builtin and an impure project module in the pure folders', async () => {
    expect(
      await ruleIds('engine/expr/planted.ts', "import { execa } from 'execa';\nexport const run = execa;\n"),
    ).toEqual(['neo/pure-imports']);
    expect(await ruleIds('engine/posture/planted.ts', "import fs from 'fs';\nexport const f = fs;\n")).toEqual([
      'neo/pure-imports',
    ]);
    const barrel = "import { loadDefinitions } from '../../definitions/index.js';\nexport const l = loadDefinitions;\n";
    expect(await ruleIds('engine/flow/core/planted.ts', barrel)).toEqual(['neo/pure-imports']);
    const statechart = "import { readFile } from 'node:fs/promises';\nexport const r = readFile;\n";
    expect(await ruleIds('engine/session/machine.ts', statechart)).toEqual(['neo/pure-imports']);
  });

  it('lets a pure file import types from anywhere and values from pure modules', async () => {
    const code = [
      "import type { Flow } from '../../definitions/index.js';",
      "import { postureWithin } from '../../posture/index.js';",
      "import { setup } from 'xstate';",
      'export const f = (x: Flow) => [x, postureWithin, setup];',
      '',
    ].join('\n');
    expect(await ruleIds('engine/flow/core/planted.ts', code)).toEqual([]);
  });

  it("fails an import that reaches past another area's index.ts", async () => {
    const deep = "import { readRunRecord } from '../../flow/store/runs.js';\nexport const r = readRunRecord;\n";
    expect(await ruleIds('engine/session/ops/planted.ts', deep)).toEqual(['neo/area-imports']);
    const viaIndex = "import { readRunRecord } from '../../flow/index.js';\nexport const r = readRunRecord;\n";
    expect(await ruleIds('engine/session/ops/planted.ts', viaIndex)).toEqual([]);
  });
});
