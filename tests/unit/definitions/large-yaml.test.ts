import { describe, expect, it } from 'vitest';
import { loadDefinitionText } from '../../../engine/definitions/index.js';

const flow = { kind: 'flow' as const, layer: 'path' as const, trusted: true };
const brief = (d: { code: string; message: string; span?: { start: { line: number; column: number } } }) =>
  `${d.span?.start.line}:${d.span?.start.column} ${d.code} ${d.message}`;

describe('duplicate keys are found in linear time, each located with the first one', () => {
  // The parser's own check compares every key with each earlier one: 60,000 keys took minutes.
  it('a 60,000-key map under the 1 MB cap loads, and its one duplicate is reported', { timeout: 45_000 }, () => {
    const keys = Array.from({ length: 60_000 }, (_, i) => `      K${i}: v\n`).join('');
    const text = `name: big\nsteps:\n  - id: s\n    run: echo\n    env:\n${keys}      K7: again\n`;
    expect(text.length).toBeLessThan(1024 * 1024);
    const load = loadDefinitionText('/p/big.flow.yaml', text, flow);
    expect(load.diagnostics.map(brief)).toEqual(['60006:7 DEF_YAML_DUPLICATE_KEY duplicate key `K7`']);
    expect(load.diagnostics[0]!.related).toEqual([
      {
        message: 'first defined here',
        span: {
          file: '/p/big.flow.yaml',
          start: { line: 13, column: 7, offset: 140 },
          end: { line: 13, column: 9, offset: 142 },
        },
      },
    ]);
    const clean = loadDefinitionText('/p/big.flow.yaml', text.replace('K7: again', 'K60000: v'), flow);
    expect(clean.diagnostics).toEqual([]);
  });

  it('in flow maps and nested maps alike; keys of other types or other maps do not collide', () => {
    const text = [
      'name: dup',
      'steps:',
      '  - { id: a, run: echo, id: b }',
      '  - id: c',
      '    run: echo',
      '    env: { X: "1", Y: "2" }',
      '  - id: d',
      '    run: echo',
      '    env: { X: "1" }',
      'inputs:',
      '  n: { type: number, default: 1 }',
      '  m: { type: string, default: "1" }',
      'name: again',
      '',
    ].join('\n');
    const load = loadDefinitionText('/p/dup.flow.yaml', text, flow);
    expect(load.diagnostics.map(brief).sort()).toEqual([
      '13:1 DEF_YAML_DUPLICATE_KEY duplicate key `name`',
      '3:25 DEF_YAML_DUPLICATE_KEY duplicate key `id`',
    ]);
  });
});
