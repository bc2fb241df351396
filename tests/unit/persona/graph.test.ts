import { describe, expect, test } from 'vitest';
import { personaGraph, renderPersonaGraph } from '../../../engine/persona/index.js';

describe('the persona statechart drawing', () => {
  test('comes from the machine itself: the loop of seed 004 §2', () => {
    const g = personaGraph();
    expect(g.initial).toBe('listBackends');
    expect(g.states.map((s) => s.id)).toEqual([
      'listBackends',
      'select',
      'start',
      'read',
      'decide',
      'answer',
      'judge',
      'guide',
      'verify',
      'stop',
      'settled',
    ]);
    const edges = g.edges.filter((e) => e.label !== 'abort').map((e) => `${e.from} -> ${e.to}: ${e.label}`);
    expect(edges).toEqual([
      'listBackends -> select: done',
      'listBackends -> settled: failed',
      'select -> start: done',
      'select -> settled: no backend',
      'start -> read: done',
      'start -> select: rejected',
      'start -> settled: rejected',
      'read -> decide: clarification',
      'read -> judge: turn_complete',
      'read -> verify: ended | error | max_rounds',
      'read -> verify: error',
      'decide -> answer: done',
      'decide -> answer: deny',
      'answer -> read: done',
      'answer -> verify: error',
      'judge -> guide: guide',
      'judge -> stop: stop',
      'judge -> stop: error',
      'guide -> read: done',
      'guide -> verify: error',
      'verify -> stop: done',
      'verify -> stop: error',
      'stop -> settled: done',
      'stop -> settled: error',
    ]);
  });

  test('mermaid', () => {
    const text = renderPersonaGraph('mermaid', {
      title: 'persona fixer',
      notes: { decide: 'rules (2 clarify rules, otherwise deny)' },
    });
    expect(text.split('\n').slice(0, 7)).toEqual([
      '---',
      'title: persona fixer',
      '---',
      'stateDiagram-v2',
      '  decide: decide · rules (2 clarify rules, otherwise deny)',
      '  [*] --> listBackends',
      '  listBackends --> select',
    ]);
    expect(text).toContain('  read --> decide: clarification\n');
    expect(text).toContain('  judge --> guide: guide\n');
    expect(text).toContain('  settled --> [*]\n');
  });

  test('dot', () => {
    const text = renderPersonaGraph('dot', { title: 'persona fixer', notes: { verify: 'verify npm test' } });
    expect(text.startsWith('digraph "persona fixer" {\n')).toBe(true);
    expect(text).toContain('  "verify" [label="verify\\nverify npm test"];');
    expect(text).toContain('  "read" -> "judge" [label="turn_complete"];');
    expect(text).toContain('  "settled" [label="settled", shape=doublecircle];');
    expect(text.trimEnd().endsWith('}')).toBe(true);
  });
});
