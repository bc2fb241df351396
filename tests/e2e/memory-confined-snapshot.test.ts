/**
 * `neo memory mcp` in bwrap when no neo holds the memory open: the folder is bound read-only at
 * /run/neo-memory with no -wal or -shm beside the database (the last close checkpointed and
 * removed them), so SQLite cannot open it read-only in place; the server reads a snapshot of the
 * file and answers from it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { memoryDir, openMemory, recordDecision } from '../../engine/memory/index.js';
import { NEO_BIN } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';
import { text } from './memory-helpers.js';

describe('neo memory mcp confined, with no writer holding the database', () => {
  it('serves a snapshot of the read-only database', async () => {
    const root = await tempDir('neo-e2e-memory-snapshot-');
    const repo = join(root, 'repo');
    const home = join(root, 'home');
    await writeTree(repo, { 'sum.js': 'module.exports = (a, b) => a + b;\n' });
    await git(repo, 'init', '-q');
    const memory = openMemory(home, repo);
    recordDecision(memory.db, {
      kind: 'gate-refused',
      source: 'neo',
      verdict: 'refused',
      files: ['sum.js'],
      reason: 'a * b',
    });
    memory.db.close();
    const folder = memoryDir(home, memory.repoRoot);
    expect(existsSync(join(folder, 'memory.db-wal'))).toBe(false);

    const transport = new StdioClientTransport({
      command: 'bwrap',
      args: [
        ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/run'],
        ...['--ro-bind', folder, '/run/neo-memory', '--die-with-parent', '--chdir', '/'],
        ...[process.execPath, NEO_BIN, 'memory', 'mcp'],
      ],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'neo-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const found = await client.callTool({ name: 'search_decisions', arguments: { file: 'sum.js' } });
      expect(found.isError).not.toBe(true);
      expect(JSON.parse(text(found)).decisions).toMatchObject([{ kind: 'gate-refused', reason: 'a * b' }]);
      const record = await client.callTool({ name: 'record_decision', arguments: { summary: 'x', outcome: 'kept' } });
      expect(record.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
