/**
 * Capability provisioning as the real CLIs receive it: `neo flow run` in a git repository (which
 * calls for the T0 builtin neo-memory) starts Claude Code with the provisioned stdio
 * MCP server through the session's `--mcp-config` file, and the scripted model calls find_symbol and gets the code graph's answer.
 * The flow runs under bwrap, posture plan: the server (read-only tools, no network in its entry) starts
 * through the nested `bwrap --unshare-net` and its tools need no allowedTools.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { cliSetup, type CliId } from './harness/cli-setups.js';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { sandbox } from './harness/sandbox.js';

const NEO = join(ROOT, 'dist', 'bin', 'neo.js');

// Codex 0.171 takes the server as `-c mcp_servers.…` and keeps its tools behind its own tool_search,
// in the namespace `mcp__neo-memory`: its model script calls find_symbol there by namespace.
for (const id of ['claude', 'codex'] as CliId[]) {
  describeCli(
    id,
    'a provisioned stdio MCP server through neo flow run',
    (cli) => {
      it('the model calls find_symbol on the provisioned neo-memory server and gets the right file and line', async () => {
        const box = await sandbox();
        const model = await serveModel(
          join(ROOT, 'tests', 'fixtures', 'model-scripts', `${id}-provisioned-mcp.yaml`),
          box.root,
        );
        const setup = await cliSetup(id, box, model.url, cli.bin);
        await mkdir(join(box.repo, 'src'));
        await writeFile(
          join(box.repo, 'src', 'lex.ts'),
          "\nexport function tokens(text: string): string[] {\n  return text.split(' ');\n}\n",
        );
        await writeFile(
          join(box.repo, 'find.flow.yaml'),
          [
            'name: find',
            // Confined: the server (whose entry asks for no network) runs in a network namespace of its own.
            'sandbox: bwrap',
            // Plan: find_symbol is declared read-only by the neo-memory entry, so it runs without
            // the step listing it in allowedTools.
            `defaults: { backend: ${setup.backend}, maxPosture: plan }`,
            'steps:',
            '  - id: find',
            '    brief: Where is tokens defined?',
            '    requireChange: false',
            ...(setup.model === undefined ? [] : [`    model: ${setup.model}`]),
            '',
          ].join('\n'),
        );
        await execa('git', ['add', '-A'], { cwd: box.repo });
        await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'plan'], {
          cwd: box.repo,
        });
        // neo-memory is handed over once the repository has a memory.
        const index = await execa(process.execPath, [NEO, 'memory', 'index'], {
          cwd: box.repo,
          env: setup.env,
          extendEnv: false,
          reject: false,
        });
        expect(index.exitCode, index.stderr).toBe(0);
        try {
          const run = await execa(process.execPath, [NEO, 'flow', 'run', 'find.flow.yaml', '--json'], {
            cwd: box.repo,
            env: setup.env,
            extendEnv: false,
            reject: false,
            timeout: 240_000,
          });
          expect(run.exitCode, run.stdout.slice(-3000) + run.stderr).toBe(0);
          // What the CLI sent back to the model: find_symbol's answer, from the code graph.
          const sent = JSON.stringify(model.mainRequests().map((r) => r.body));
          expect(sent).toMatch(/\\"file\\":\\"src\/lex\.ts\\",\\"startLine\\":2,\\"endLine\\":4/);
          expect(processesIn(box.repo)).toEqual([]);
        } finally {
          await model.stop();
        }
      }, 300_000);
    },
    { describe, skip: (name) => it.skip(name, () => {}) },
  );
}
