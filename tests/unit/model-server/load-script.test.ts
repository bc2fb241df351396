import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../engine/definitions/index.js';
import { loadModelScript, parseModelScript } from '../../../engine/model-server/index.js';
import { tempDir } from '../../helpers/temp.js';

const lines = (diagnostics: readonly Diagnostic[]) =>
  diagnostics.map(
    (d) =>
      `${d.span?.start.line}:${d.span?.start.column} ${d.severity}[${d.code}] ${d.message}${d.hint === undefined ? '' : ` | ${d.hint}`}`,
  );

describe('parseModelScript', () => {
  it('accepts a valid script and returns it', () => {
    const { script, diagnostics } = parseModelScript('turns:\n  - text: hi\n    usage: { input: 3, output: 1 }\n');
    expect(diagnostics).toEqual([]);
    expect(script).toEqual({ turns: [{ text: 'hi', usage: { input: 3, output: 1 } }] });
  });

  it('points an unknown key at the key, with a did-you-mean', () => {
    const { script, diagnostics } = parseModelScript('turns:\n  - txt: hi\n', 's.yaml');
    expect(script).toBeUndefined();
    expect(lines(diagnostics)).toEqual([
      '2:5 error[DEF_UNKNOWN_KEY] unknown key `txt` in `turns[0]` | did you mean `text`?',
    ]);
    expect(diagnostics[0]!.span!.file).toBe('s.yaml');
  });

  it('reports wrong types, bad enums and out-of-range statuses where they are written', () => {
    const text = [
      'turns:',
      '  - error: { status: 700 }',
      '  - tools:',
      '      - name: Write',
      '        kind: fn',
      '  - when: { api: claude }',
      '    text: 5',
    ].join('\n');
    expect(lines(parseModelScript(text).diagnostics)).toEqual([
      '2:22 error[DEF_SCHEMA] `turns[0].error.status` must be <= 599 | e.g. 429',
      '5:15 error[DEF_BAD_VALUE] `turns[1].tools[0].kind` must be one of function, custom; got "fn" | allowed: function, custom',
      '6:18 error[DEF_BAD_VALUE] `turns[2].when.api` must be one of anthropic, responses, chat, gemini; got "claude" | allowed: anthropic, responses, chat, gemini',
      '7:11 error[DEF_WRONG_TYPE] `turns[2].text` must be a string; got an integer | quote it to make it text: `text: "5"`',
    ]);
  });

  it('says a missing `turns` is required', () => {
    expect(lines(parseModelScript('models: [m]\n').diagnostics)[0]).toMatch(
      /^1:1 error\[DEF_MISSING_FIELD\] missing required field `turns`/,
    );
  });

  it('reports a regular expression that does not compile, at the pattern', () => {
    const { script, diagnostics } = parseModelScript(
      'turns:\n  - when:\n      user: { matches: "(?i)x" }\n    text: hi\n',
    );
    expect(script).toBeUndefined();
    expect(lines(diagnostics)).toEqual([
      '3:24 error[MODEL_SCRIPT_BAD_REGEX] `turns[0].when.user.matches` is not a valid regular expression: /(?i)x/: Invalid group | JavaScript regular expression syntax; flags such as (?i) are not supported',
    ]);
  });

  it('warns about empty turns and error turns with content, and still loads', () => {
    const { script, diagnostics } = parseModelScript(
      'turns:\n  - usage: { input: 1 }\n  - error: { status: 500 }\n    text: lost\n',
    );
    expect(script).toBeDefined();
    expect(lines(diagnostics)).toEqual([
      '2:5 warning[MODEL_SCRIPT_EMPTY_TURN] `turns[0]` says nothing: the reply is empty | give it `text`, `tools`, `reasoning`, `error` or `stall`',
      '3:5 warning[MODEL_SCRIPT_ERROR_WITH_CONTENT] `turns[1]` has an error and content; only the error is sent | put the content in the next turn: a client retries after an error',
    ]);
  });

  it('reports YAML syntax errors and an empty file', () => {
    expect(parseModelScript('turns: [\n').diagnostics[0]!.code).toMatch(/^DEF_YAML/);
    expect(lines(parseModelScript('').diagnostics)).toEqual([
      '1:1 error[MODEL_SCRIPT_EMPTY] the model script is empty | start with `turns:` and a list of replies, e.g. `- text: Hello`',
    ]);
  });
});

describe('loadModelScript', () => {
  it('reads JSON too', async () => {
    const dir = await tempDir();
    const file = join(dir, 's.json');
    await writeFile(file, JSON.stringify({ turns: [{ text: 'x' }] }));
    expect((await loadModelScript(file)).script).toEqual({ turns: [{ text: 'x' }] });
  });
  it('a missing file is a diagnostic, not a throw', async () => {
    const { script, diagnostics } = await loadModelScript('/nonexistent/neo/script.yaml');
    expect(script).toBeUndefined();
    expect(diagnostics[0]!.code).toBe('DEF_READ_FAILED');
  });
});
