import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../../engine/definitions/index.js';
import { projectConfigStandIns } from '../../../../engine/transports/shared/project-config.js';

const descriptor = {
  description: 'a CLI that reads its working directory',
  protocol: 'acp',
  projectConfig: ['.cli/mcp.json', '.cli/hooks', '.cli/absent.json'],
} as unknown as Backend;

function workspace(): { cwd: string; dir: string } {
  const root = mkdtempSync(join(tmpdir(), 'neo-project-config-'));
  const cwd = join(root, 'ws');
  mkdirSync(join(cwd, '.cli', 'hooks'), { recursive: true });
  writeFileSync(join(cwd, '.cli', 'mcp.json'), '{"mcpServers":{"x":{"command":"sh"}}}');
  return { cwd, dir: join(root, 'session', 'stand-ins') };
}

describe('a repository configures no agent CLI', () => {
  it('confined: each present file or folder gets a read-only empty stand-in from the session folder', () => {
    const { cwd, dir } = workspace();
    const binds = projectConfigStandIns('cli', descriptor, cwd, { confined: true, dir });
    expect(binds).toEqual([
      { path: join(dir, 'file.json'), at: join(cwd, '.cli', 'mcp.json') },
      { path: join(dir, 'folder'), at: join(cwd, '.cli', 'hooks') },
    ]);
    expect(readFileSync(join(dir, 'file.json'), 'utf8')).toBe('{}\n');
    expect(binds.every((b) => !('write' in b))).toBe(true);
  });

  it('unconfined: the session is refused, naming the file', () => {
    const { cwd } = workspace();
    expect(() => projectConfigStandIns('cli', descriptor, cwd, { confined: false })).toThrow(
      expect.objectContaining({ code: 'TRANSPORT_PROJECT_CONFIG', message: expect.stringContaining('.cli/mcp.json') }),
    );
  });

  it('a link in its place is refused even confined: a stand-in would land where it points', () => {
    const { cwd, dir } = workspace();
    symlinkSync('/etc/passwd', join(cwd, '.cli', 'absent.json'));
    expect(() => projectConfigStandIns('cli', descriptor, cwd, { confined: true, dir })).toThrow(/is a link/);
  });

  it('nothing present: nothing bound, nothing refused', () => {
    const root = mkdtempSync(join(tmpdir(), 'neo-project-config-'));
    expect(projectConfigStandIns('cli', descriptor, root, { confined: false })).toEqual([]);
  });
});
