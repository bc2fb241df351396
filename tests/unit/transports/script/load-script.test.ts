import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, test } from 'vitest';
import { tempDir } from '../../../helpers/temp.js';
import type { Diagnostic } from '../../../../engine/definitions/index.js';
import {
  checkScriptFile,
  checkScriptText,
  planOrThrow,
  ScriptInvalidError,
} from '../../../../engine/transports/script/index.js';

beforeEach(async () => {
  process.env.NEO_HOME = await tempDir('neo-home-');
});

const FIXTURES = fileURLToPath(new URL('../../../fixtures/scripts/', import.meta.url));

/** `line:col severity CODE message` — the parts a user sees. */
function brief(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.span?.start.line}:${d.span?.start.column} ${d.severity} ${d.code} ${d.message}`);
}

describe('invalid scripts: every diagnostic, exactly', () => {
  const cases: Record<string, string[]> = {
    'unknown-action.yaml': ['3:7 error DEF_UNKNOWN_KEY unknown key `wirte` in `turns[0][1]`'],
    'two-actions.yaml': [
      '3:7 error DEF_SCRIPT_ONE_ACTION an action item holds 2 actions (say, think); write one per item',
    ],
    'missing-fields.yaml': [
      '2:7 error DEF_MISSING_FIELD missing required field `content` in `turns[0][0].write`',
      '3:7 error DEF_MISSING_FIELD missing required field `replace` in `turns[0][1].edit`',
      '4:5 error DEF_MISSING_FIELD missing required field `actions` in `turns[1]`',
    ],
    'wrong-types.yaml': [
      '1:8 error DEF_WRONG_TYPE `model` must be a string; got an integer',
      '3:23 error DEF_WRONG_TYPE `turns[0][0].run.command` must be a list or a string; got an integer',
      '3:38 error DEF_WRONG_TYPE `turns[0][0].run.expectExit` must be an integer; got a string',
      '4:12 error DEF_WRONG_TYPE `turns[0][1].say` must be a string; got a list',
      '5:18 error DEF_SCHEMA `turns[1].cost.usd` must be >= 0',
      '5:35 error DEF_WRONG_TYPE `turns[1].cost.inputTokens` must be an integer; got a number',
    ],
    'bad-turns.yaml': [
      '1:1 error DEF_MISSING_FIELD missing required field `turns`',
      '1:1 error DEF_UNKNOWN_KEY unknown key `turn`',
    ],
    'empty-turns.yaml': ['1:8 error DEF_SCHEMA `turns` must not be empty'],
    'yaml-syntax.yaml': ['3:1 error DEF_YAML_SYNTAX Missing closing "quote'],
  };
  for (const [file, expected] of Object.entries(cases)) {
    test(file, async () => {
      const check = await checkScriptFile(join(FIXTURES, 'invalid', file));
      expect(check.plan).toBeUndefined();
      expect(brief(check.diagnostics)).toEqual(expected);
      for (const d of check.diagnostics) expect(d.span?.file).toBe(join(FIXTURES, 'invalid', file));
    });
  }

  test('hints name the fix', async () => {
    const [unknown] = (await checkScriptFile(join(FIXTURES, 'invalid', 'bad-turns.yaml'))).diagnostics.filter(
      (d) => d.code === 'DEF_UNKNOWN_KEY',
    );
    expect(unknown?.hint).toBe('did you mean `turns`?');
    const [two] = (await checkScriptFile(join(FIXTURES, 'invalid', 'two-actions.yaml'))).diagnostics;
    expect(two?.hint).toBe('start a new list item (`- think: …`) for the second one');
  });

  test('a turn that is neither a list nor a map', () => {
    expect(brief(checkScriptText('turns:\n  - 5\n', '/s.yaml').diagnostics)).toEqual([
      '2:5 error DEF_WRONG_TYPE `turns[0]` must be a list of actions, or a map with `actions`; got an integer',
    ]);
  });

  test('an action item with nothing but a note', () => {
    expect(brief(checkScriptText('turns:\n  - - x-note: hi\n', '/s.yaml').diagnostics)).toEqual([
      '2:7 error DEF_SCRIPT_ONE_ACTION an action item holds no action',
    ]);
  });

  test('mistakes inside an ask continuation are found', () => {
    const text =
      'turns:\n  - - ask:\n        toolName: X\n        input: {}\n        onDeny:\n          - say: a\n            end: {}\n';
    expect(brief(checkScriptText(text, '/s.yaml').diagnostics)).toEqual([
      '7:13 error DEF_SCRIPT_ONE_ACTION an action item holds 2 actions (say, end); write one per item',
    ]);
  });

  test('planOrThrow raises TRANSPORT_SCRIPT_INVALID: one line naming file:line:col and the problem, the diagnostics attached', async () => {
    const file = join(FIXTURES, 'invalid', 'unknown-action.yaml');
    const error = (() => {
      try {
        planOrThrow(checkScriptText('turns:\n  - - say: hi\n    - wirte: { path: a.txt, content: x }\n', file), file);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ScriptInvalidError);
    const invalid = error as ScriptInvalidError;
    expect(invalid.code).toBe('TRANSPORT_SCRIPT_INVALID');
    expect(invalid.message).toBe(
      `script ${file}:3:7 is invalid: unknown key \`wirte\` in \`turns[0][1]\` (did you mean \`write\`?)`,
    );
    expect(invalid.hint).toBe(`run \`neo script validate ${file}\` for every problem with a code frame`);
    expect(invalid.diagnostics).toHaveLength(1);
  });

  test('an unreadable file is TRANSPORT_SCRIPT_NOT_FOUND', async () => {
    await expect(checkScriptFile(join(FIXTURES, 'nope.yaml'))).rejects.toMatchObject({
      code: 'TRANSPORT_SCRIPT_NOT_FOUND',
    });
  });
});

describe('valid scripts', () => {
  test('every action normalizes to a step', async () => {
    const check = await checkScriptFile(join(FIXTURES, 'valid', 'every-action.yaml'));
    expect(check.diagnostics).toEqual([]);
    const plan = check.plan!;
    expect(plan.turns.map((t) => t.steps.map((s) => s.kind))).toEqual([
      ['say', 'think', 'write', 'edit', 'rename', 'run', 'run', 'delete', 'ask', 'say'],
      ['hang'],
      ['fail'],
      ['end'],
    ]);
    expect(plan.turns[0]!.steps[6]).toEqual({
      kind: 'run',
      command: 'test -f notes/b.txt && echo present',
      expectExit: 0,
    });
    expect(plan.turns[3]!.steps[0]).toEqual({ kind: 'end', ok: true });
    expect(plan.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('when and cost are kept; guidance matches are lower-cased', async () => {
    const plan = (await checkScriptFile(join(FIXTURES, 'valid', 'fix-after-verify.yaml'))).plan!;
    expect(plan.turns[1]).toMatchObject({
      index: 1,
      guidanceContains: ['exited 1', 'fail'],
      cost: { usd: 0.01, inputTokens: 1800, outputTokens: 90 },
    });
    expect(plan.turns[0]!.guidanceContains).toBeUndefined();
    expect(plan.script.model).toBe('scripted-model');
  });

  test('an action after one that ends the turn is a warning, not an error', async () => {
    const check = await checkScriptFile(join(FIXTURES, 'valid', 'unreachable.yaml'));
    expect(check.plan).toBeDefined();
    expect(brief(check.diagnostics)).toEqual([
      '4:7 warning DEF_SCRIPT_UNREACHABLE this action never runs: the `end` before it ends the turn',
    ]);
  });

  test('a byte-order mark is ignored', () => {
    expect(checkScriptText('\ufeffturns:\n  - - say: hi\n', '/s.yaml').diagnostics).toEqual([]);
  });
});
