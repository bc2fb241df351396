import { describe, expect, it } from 'vitest';
import {
  answerAsk,
  curatedMcpAsk,
  decideAsk,
  rulesAllowingCommands,
  type ToolAsk,
} from '../../../engine/posture/index.js';

const curated = { fx: { readOnly: ['lookup'] }, fx__more: {}, docs: { readOnly: true } };
const ask = (toolName: string, kind: ToolAsk['kind'] = 'execute'): ToolAsk => ({ kind, toolName, paths: [] });

describe('curatedMcpAsk', () => {
  it('a declared read-only tool is a read; any other tool of the server is a command, whatever the adapter guessed', () => {
    expect(curatedMcpAsk(ask('mcp__fx__lookup'), curated)).toMatchObject({ kind: 'read', curatedMcp: 'fx' });
    expect(curatedMcpAsk(ask('mcp__fx__touch', 'read'), curated)).toMatchObject({ kind: 'execute', curatedMcp: 'fx' });
    expect(curatedMcpAsk(ask('mcp__docs__anything'), curated)).toMatchObject({ kind: 'read', curatedMcp: 'docs' });
  });

  it('the longest server name wins; other tools and servers are left as they are', () => {
    expect(curatedMcpAsk(ask('mcp__fx__more__lookup'), curated)).toMatchObject({
      curatedMcp: 'fx__more',
      kind: 'execute',
    });
    expect(curatedMcpAsk(ask('mcp__other__lookup'), curated)).toEqual(ask('mcp__other__lookup'));
    expect(curatedMcpAsk(ask('mcp__fx__'), curated)).toEqual(ask('mcp__fx__'));
    expect(curatedMcpAsk(ask('Bash'), curated)).toEqual(ask('Bash'));
    expect(curatedMcpAsk(ask('mcp__fx__touch'), undefined)).toEqual(ask('mcp__fx__touch'));
  });

  it('through the gate and the rules: reads run under plan, other tools are refused there and allowed by the rules above it', () => {
    const read = curatedMcpAsk(ask('mcp__fx__lookup'), curated);
    const run = curatedMcpAsk(ask('mcp__fx__touch'), curated);
    expect(decideAsk('plan', read, { root: '/w' }).kind).toBe('allow');
    expect(decideAsk('plan', run, { root: '/w' }).kind).toBe('deny');
    expect(decideAsk('acceptEdits', run, { root: '/w' }).kind).toBe('ask');
    const rules = { workspace: '/w', rules: rulesAllowingCommands([]), allowCommands: [] };
    expect(answerAsk(run, { ...rules, posture: 'acceptEdits' })).toMatchObject({
      decision: 'allow',
      rule: 'capability',
    });
    expect(answerAsk(run, { ...rules, posture: 'plan' })).toMatchObject({ decision: 'deny', rule: 'posture' });
    // An uncurated MCP tool still needs a rule.
    expect(answerAsk(ask('mcp__other__touch'), { ...rules, posture: 'acceptEdits' })).toMatchObject({
      decision: 'deny',
    });
    // A persona's own deny rule wins over the curation.
    const deny = { clarify: [{ decision: 'deny' as const, tool: 'mcp__fx__touch' }], otherwise: 'deny' as const };
    expect(answerAsk(run, { workspace: '/w', rules: deny, posture: 'acceptEdits' })).toMatchObject({
      decision: 'deny',
    });
  });
});
