/**
 * Seed 003's hand-off and the memory inside a sandbox, through the binary. A run writes its
 * hand-off (state.json: plan, completed steps, files touched, decisions, repository path) into the
 * repository's memory after each step; a step with `memory: { state: true }` gets it in its brief
 * as untrusted data; an agent step under `sandbox: bwrap` starts `neo memory mcp` (as an agent
 * CLI would) and that server, with NEO_HOME hidden, reads the repository's memory — decisions,
 * graph, the hand-off — from the folder neo bound read-only, cannot write it, and refuses
 * record_decision.
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const PROBE = fileURLToPath(new URL('../fixtures/memory/mcp-probe.mjs', import.meta.url));
const TEST = "const assert = require('node:assert');\nassert.strictEqual(require('../sum.js')(2, 3), 5);\n";
const FLOW = `name: confined-memory
defaults: { backend: script, maxPosture: full }
workspace: { isolation: inplace }
steps:
  - id: fix
    brief: make the test pass by fixing sum.js
    script: fix.yaml
    verify: { run: node test/sum.test.js, attempts: 2 }
  - id: probe
    needs: [fix]
    brief: ask the memory what was tried on sum.js
    requireChange: false
    posture: full
    sandbox: bwrap
    memory: { state: true }
    script: probe.yaml
`;
const FIX = `turns:
  - - write: { path: sum.js, content: "function sum(a, b) { return a * b; }\\nmodule.exports = sum;\\n" }
    - say: Done, multiplication it is.
  - - write: { path: sum.js, content: "function sum(a, b) { return a + b; }\\nmodule.exports = sum;\\n" }
    - say: Fixed for real.
`;
const PROBE_SCRIPT = `turns:
  - - run: { command: "node ${PROBE} probe.json" }
    - say: Asked.
`;

describe('the run hand-off and the memory in a sandbox', () => {
  it('hands the run to memory, to a brief, and to a confined MCP server that can only read it', async () => {
    const root = await tempDir('neo-e2e-memory-confined-');
    const repo = join(root, 'repo');
    const home = join(root, 'home');
    await writeTree(repo, {
      '.gitignore': 'probe.json\n',
      'sum.js': 'function sum(a, b) { return a - b; }\nmodule.exports = sum;\n',
      'test/sum.test.js': TEST,
      'plan.yaml': FLOW,
      'fix.yaml': FIX,
      'probe.yaml': PROBE_SCRIPT,
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const env = { NEO_HOME: home };
    expect((await runNeo(['memory', 'index'], { cwd: repo, env })).exitCode).toBe(0);

    const run = await runNeo(['flow', 'run', 'plan.yaml', '--json'], { cwd: repo, env });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const runId = (await readdir(join(home, 'runs')))[0]!;

    // The hand-off neo wrote, beside the repository's memory database.
    const [folder] = (await readdir(join(home, 'memory'))).filter((f) => f.startsWith('repo-'));
    const handoff = JSON.parse(await readFile(join(home, 'memory', folder!, 'runs', runId, 'state.json'), 'utf8'));
    expect(handoff).toMatchObject({
      version: 1,
      runId,
      flow: 'confined-memory',
      status: 'succeeded',
      plan: [
        { id: 'fix', kind: 'agent', needs: [] },
        { id: 'probe', kind: 'agent', needs: ['fix'] },
      ],
      completed: [
        { step: 'fix', status: 'succeeded', verdict: 'success', files: ['sum.js'] },
        { step: 'probe', status: 'succeeded' },
      ],
      filesTouched: ['sum.js'],
    });
    expect(await git(repo, 'rev-parse', '--show-toplevel')).toContain(handoff.repo);
    expect(handoff.decisions.map((d: { kind: string; step: string }) => [d.kind, d.step])).toEqual([
      ['step-succeeded', 'probe'],
      ['step-succeeded', 'fix'],
      ['gate-refused', 'fix'],
    ]);

    // The probe step's brief: the hand-off as it stood after `fix`, as untrusted data.
    const briefs = await Promise.all(
      (await readdir(join(home, 'code-sessions'))).map(
        async (id) =>
          JSON.parse(await readFile(join(home, 'code-sessions', id, 'meta.json'), 'utf8')).taskBrief as string,
      ),
    );
    const probeBrief = briefs.find((b) => b.startsWith('ask the memory'))!;
    expect(probeBrief).toContain('<untrusted-data source="neo run state">');
    expect(probeBrief).toMatch(/- fix \[agent\]: succeeded \(success\); files sum\.js/);
    expect(probeBrief).toMatch(/- probe \[agent\]: not done/);
    expect(probeBrief).toMatch(/gate-refused fix: refused/);

    // Inside bwrap: the server read the decisions, the hand-off and the graph; it could not write.
    const seen = JSON.parse(await readFile(join(repo, 'probe.json'), 'utf8'));
    expect(seen.decisions.isError).toBe(false);
    expect(JSON.parse(seen.decisions.text).decisions.map((d: { kind: string }) => d.kind)).toEqual([
      'step-succeeded',
      'gate-refused',
    ]);
    expect(seen.state.isError).toBe(false);
    expect(JSON.parse(seen.state.text)).toMatchObject({ runId, completed: [{ step: 'fix', status: 'succeeded' }] });
    expect(JSON.parse(seen.symbol.text).definitions).toMatchObject([{ file: 'sum.js', startLine: 1 }]);
    expect(seen.record).toMatchObject({ isError: true, text: expect.stringMatching(/refused inside a sandbox/) });
    expect(seen.write).toBe('EROFS');
    const agentReported = await runNeo(['memory', 'decisions', '--json'], { cwd: repo, env });
    expect(agentReported.stdout).not.toContain('tried from inside');
  });
});
