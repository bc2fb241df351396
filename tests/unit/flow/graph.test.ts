import { describe, expect, it } from 'vitest';
import { renderGraph, stepGraph, type CompiledPlan } from '../../../engine/flow/index.js';

const step = (id: string, needs: string[], group: 'main' | 'finally' = 'main', kind = 'run') =>
  ({ id, needs, group, kind }) as unknown as CompiledPlan['steps'][number];

const plan = {
  name: 'p',
  steps: [
    step('a', []),
    step('b', ['a']),
    step('c', ['a']),
    step('report', [], 'finally'),
    step('notify', ['b'], 'finally'),
    step('clean', [], 'finally'),
  ],
} as unknown as CompiledPlan;

describe('the step graph', () => {
  it('is one model: needs are edges, a finally step without needs hangs off every leaf', () => {
    expect(stepGraph(plan).edges).toEqual([
      { from: 'a', to: 'b', dashed: false },
      { from: 'a', to: 'c', dashed: false },
      { from: 'b', to: 'report', dashed: true },
      { from: 'c', to: 'report', dashed: true },
      { from: 'b', to: 'notify', dashed: false },
      { from: 'b', to: 'clean', dashed: true },
      { from: 'c', to: 'clean', dashed: true },
    ]);
  });

  it('draws Mermaid and dot as `neo flow graph` always did', () => {
    expect(renderGraph(plan, 'mermaid')).toBe(
      [
        'flowchart TD',
        '  s_a["a<br/>run"]',
        '  s_b["b<br/>run"]',
        '  s_c["c<br/>run"]',
        '  s_a --> s_b',
        '  s_a --> s_c',
        '  subgraph finally',
        '    s_report["report<br/>run"]',
        '    s_notify["notify<br/>run"]',
        '    s_clean["clean<br/>run"]',
        '  end',
        '  s_b -.-> s_report',
        '  s_c -.-> s_report',
        '  s_b --> s_notify',
        '  s_b -.-> s_clean',
        '  s_c -.-> s_clean',
        '',
      ].join('\n'),
    );
    expect(renderGraph(plan, 'dot')).toBe(
      [
        'digraph "p" {',
        '  rankdir=TB;',
        '  node [shape=box, style=rounded];',
        '  "a" [label="a\\nrun"];',
        '  "b" [label="b\\nrun"];',
        '  "c" [label="c\\nrun"];',
        '  "report" [label="report\\nrun", style="rounded,dashed"];',
        '  "notify" [label="notify\\nrun", style="rounded,dashed"];',
        '  "clean" [label="clean\\nrun", style="rounded,dashed"];',
        '  "a" -> "b";',
        '  "a" -> "c";',
        '  "b" -> "notify";',
        '  "b" -> "report" [style=dashed];',
        '  "c" -> "report" [style=dashed];',
        '  "b" -> "clean" [style=dashed];',
        '  "c" -> "clean" [style=dashed];',
        '}',
        '',
      ].join('\n'),
    );
  });
});
