/**
 * neo's memory MCP server through one real CLI, on the scripted model: Claude Code is given
 * `neo memory mcp` by hand (`--mcp-config`, as docs/memory.md shows), the model calls
 * find_symbol, and the tool result the CLI sends back to the model names the right file and line.
 */
import { execa } from 'execa';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { sandbox } from './harness/sandbox.js';

const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'claude-memory-mcp.yaml');
const NEO_BIN = join(ROOT, 'dist', 'bin', 'neo.js');

describeCli(
  'claude',
  'memory MCP server',
  (cli) => {
    it('the model calls find_symbol and gets the right file and line', async () => {
      const box = await sandbox();
      await mkdir(join(box.repo, 'src'));
      await writeFile(
        join(box.repo, 'src', 'lex.ts'),
        "\nexport function tokens(text: string): string[] {\n  return text.split(' ');\n}\n",
      );
      const model = await serveModel(SCRIPT, box.root);
      const mcp = {
        mcpServers: {
          'neo-memory': {
            command: process.execPath,
            args: [NEO_BIN, 'memory', 'mcp', '--repo', box.repo],
            env: { NEO_HOME: box.baseEnv.NEO_HOME!, PATH: process.env.PATH ?? '' },
          },
        },
      };
      try {
        const result = await execa(
          cli.bin,
          [
            '-p',
            'Where is tokens defined?',
            '--output-format',
            'json',
            '--model',
            'claude-sonnet-4-5',
            '--mcp-config',
            JSON.stringify(mcp),
            '--strict-mcp-config',
            '--allowedTools',
            'mcp__neo-memory__find_symbol',
          ],
          {
            cwd: box.repo,
            env: {
              ...box.baseEnv,
              CLAUDE_CONFIG_DIR: join(box.home, '.claude'),
              ANTHROPIC_BASE_URL: model.url,
              ANTHROPIC_API_KEY: 'sk-ant-neo-scripted',
              CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
              DISABLE_AUTOUPDATER: '1',
              DISABLE_TELEMETRY: '1',
              DISABLE_ERROR_REPORTING: '1',
            },
            reject: false,
            timeout: 180_000,
            stdin: 'ignore',
          },
        );
        expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
        expect(JSON.parse(result.stdout)).toMatchObject({ result: 'tokens is defined in src/lex.ts.' });
        // What the CLI sent back to the model: find_symbol's answer, from the code graph.
        const sent = JSON.stringify(model.mainRequests().map((r) => r.body));
        expect(sent).toMatch(/\\"file\\":\\"src\/lex\.ts\\",\\"startLine\\":2,\\"endLine\\":4/);
      } finally {
        await model.stop();
      }
    });
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);
