import { describe, expect, it } from 'vitest';
import { checkProtect } from '../../../engine/definitions/protect-check.js';
import { YamlSource } from '../../../engine/definitions/source.js';

describe('checkProtect', () => {
  it('does not parse the source of a protect list with no problem (a snapshot-restored persona stays unparsed)', () => {
    const unparsed = () => {
      throw new Error('the source was parsed');
    };
    expect(checkProtect(unparsed, ['@node', 'docs/**'], ['protect'])).toEqual([]);
    expect(checkProtect(unparsed, undefined, ['protect'])).toEqual([]);
  });

  it('locates an unknown preset in the source', () => {
    const source = new YamlSource('/p/persona.yaml', 'protect:\n  - "@nod"\n');
    const [problem] = checkProtect(() => source, ['@nod'], ['protect']);
    expect(problem).toMatchObject({ code: 'DEF_PROTECT_PRESET', pointer: '/protect/0', span: { start: { line: 2 } } });
  });
});
