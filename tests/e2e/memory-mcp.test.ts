/**
 * `neo memory mcp` through the official SDK's client, over stdio, against the built binary: the
 * tools it lists, a schema-checked `record_decision` stored as agent-reported, its refusal under
 * posture plan, `search_decisions` reading back what neo and the agent recorded, and a memory
 * opened only at the first call (the client waits for `tools/list` before the agent's first turn).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openMemory, recordDecision } from '../../engine/memory/index.js';
import { memoryClient, text } from './memory-helpers.js';
import { tempDir } from '../helpers/temp.js';

async function repoAndHome() {
  const root = await tempDir('neo-e2e-mcp-');
  const repo = join(root, 'repo');
  await mkdir(join(repo, '.git'), { recursive: true });
  return { repo, home: join(root, 'home') };
}

describe('neo memory mcp', () => {
  it('lists its tools, records an agent report as agent-reported, and searches what neo and agents recorded', async () => {
    const { repo, home } = await repoAndHome();
    const seeded = openMemory(home, repo);
    recordDecision(seeded.db, {
      kind: 'gate-refused',
      source: 'neo',
      runId: 'r1',
      step: 'fix',
      verdict: 'refused',
      brief: 'fix rounding',
      evidence: 'AssertionError: 0.30000000000000004 !== 0.3',
      reason: 'the check `npm test` exited 1',
      files: ['src/money.ts'],
    });
    seeded.db.close();

    const client = await memoryClient(repo, home);
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.annotations?.readOnlyHint])).toEqual([
      ['find_symbol', true],
      ['related_code', true],
      ['tests_for', true],
      ['search_decisions', true],
      ['record_decision', false],
      ['repo_map', true],
      ['file_outline', true],
      ['run_state', true],
    ]);

    const bad = await client.callTool({ name: 'record_decision', arguments: { summary: 'x', outcome: 'maybe' } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toBe('invalid input for record_decision: /outcome must be equal to one of the allowed values');
    const missing = await client.callTool({ name: 'record_decision', arguments: { summary: 'x' } });
    expect(text(missing)).toBe("invalid input for record_decision: (input) must have required property 'outcome'");

    const recorded = await client.callTool({
      name: 'record_decision',
      arguments: {
        summary: 'rounded with toFixed(2)',
        outcome: 'dropped',
        reason: 'string output',
        files: ['src/money.ts'],
      },
    });
    expect(recorded.isError).toBeFalsy();
    expect(JSON.parse(text(recorded))).toEqual({ id: 2, recorded: 'agent-reported' });

    const found = await client.callTool({ name: 'search_decisions', arguments: { file: 'src/money.ts' } });
    const { decisions } = JSON.parse(text(found)) as {
      decisions: Array<{ id: number; kind: string; source: string; verdict: string }>;
    };
    expect(decisions.map((d) => [d.id, d.kind, d.source, d.verdict])).toEqual([
      [2, 'agent-reported', 'agent', 'dropped'],
      [1, 'gate-refused', 'neo', 'refused'],
    ]);
    const byText = await client.callTool({ name: 'search_decisions', arguments: { query: 'AssertionError' } });
    expect(JSON.parse(text(byText)).decisions.map((d: { id: number }) => d.id)).toEqual([1]);
  });

  it('refuses record_decision under posture plan and writes nothing', async () => {
    const { repo, home } = await repoAndHome();
    const client = await memoryClient(repo, home, ['--posture', 'plan']);
    const refused = await client.callTool({ name: 'record_decision', arguments: { summary: 'x', outcome: 'kept' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(
      'record_decision is refused under posture plan: a planning session changes nothing, memory included',
    );
    const found = await client.callTool({ name: 'search_decisions', arguments: {} });
    expect(JSON.parse(text(found))).toEqual({ decisions: [] });
  });

  it('answers initialize and tools/list before it opens the memory: a memory it cannot open is a tool error of the call', async () => {
    const { repo, home } = await repoAndHome();
    // NEO_HOME is a file: no memory folder can be made under it.
    await writeFile(home, 'not a folder\n');
    const client = await memoryClient(repo, home);
    expect((await client.listTools()).tools).toHaveLength(8);
    const failed = await client.callTool({ name: 'search_decisions', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toMatch(/^search_decisions failed: ENOTDIR/);
  });
});
