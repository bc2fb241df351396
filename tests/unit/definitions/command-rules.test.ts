import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDefinitions } from '../../../engine/definitions/index.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

describe("a persona's allow rule that no command could match", () => {
  it('is a located definition error; deny rules may hold anything', async () => {
    const dir = await tempDir();
    const file = join(dir, 'checker.md');
    await writeTree(dir, {
      'checker.md': [
        '---',
        'name: checker',
        'description: checks',
        'driver: true',
        'rules:',
        '  clarify:',
        '    - { decision: deny, command: "rm -rf $(pwd)" }',
        '    - { decision: allow, command: "npm test *" }',
        '    - { decision: allow, command: "echo `id`" }',
        '---',
        'Check.',
        '',
      ].join('\n'),
    });
    const { diagnostics } = await loadDefinitions({
      cwd: dir,
      home: join(dir, 'home'),
      paths: [file],
      noProject: true,
    });
    expect(
      diagnostics
        .filter((d) => d.span?.file === file)
        .map((d) => `${d.span!.start.line}:${d.span!.start.column} ${d.code} ${d.message}`),
    ).toEqual([
      '9:35 DEF_COMMAND_RULE allow rule `echo `id`` can never match: the rule holds a command substitution (backticks), which no command may use',
    ]);
  });
});
