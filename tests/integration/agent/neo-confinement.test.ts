import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Posture } from '../../../engine/posture/index.js';
import type { AgentEvent } from '../../../engine/transports/index.js';
import { harness, type Harness } from '../../fixtures/agent/neo-harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const FSMONITOR = '[core]\n\tfsmonitor = touch pwned\n';
/** A name of its own beside the repo, so no other run's file can stand in for it. */
const SIBLING = `sibling-${randomUUID()}.txt`;

/**
 * The model tries every way out of the workspace it has: an absolute path into another checkout,
 * `../x`, a symlink that leads out, git's config — then one honest edit inside.
 */
function script(checkout: string) {
  return {
    turns: [
      {
        tools: [
          { name: 'write_file', arguments: { path: join(checkout, 'stolen.txt'), content: 'x' } },
          { name: 'write_file', arguments: { path: `../${SIBLING}`, content: 'x' } },
          { name: 'edit', arguments: { path: 'link/app.js', old_string: 'app', new_string: 'pwned' } },
          { name: 'write_file', arguments: { path: '.git/config', content: FSMONITOR } },
          { name: 'write_file', arguments: { path: 'ok.txt', content: 'fine\n' } },
        ],
      },
      { text: 'done' },
    ],
  };
}

async function run(posture: Posture): Promise<{ events: AgentEvent[]; checkout: string; outside: string }> {
  const outside = join(await import('../../helpers/temp.js').then((m) => m.tempDir('neo-outside-')));
  const checkout = join(outside, 'checkout');
  await mkdir(checkout);
  await writeFile(join(checkout, 'app.js'), 'app\n');
  h = await harness(script(checkout), { posture, files: { 'README.md': 'readme\n' } });
  await symlink(checkout, join(h.repo, 'link'));
  const reader = await h.start();
  const events = await reader.until('turn_complete');
  return { events, checkout, outside };
}

const gateDecisions = (events: AgentEvent[]) =>
  events.flatMap((e) => (e.type === 'gate_decision' ? [[e.ask.paths[0], e.allow]] : []));
const results = (events: AgentEvent[]) => events.flatMap((e) => (e.type === 'tool_result' ? [e.output] : []));

describe("neo's own agent stays in its workspace", () => {
  it('acceptEdits: the gate denies every write outside or into .git, says why, and records it; the edit inside goes through', async () => {
    const { events, checkout } = await run('acceptEdits');
    const repo = h!.repo;
    expect(gateDecisions(events)).toEqual([
      [join(checkout, 'stolen.txt'), false],
      [`../${SIBLING}`, false],
      ['link/app.js', false],
      ['.git/config', false],
      ['ok.txt', true],
    ]);
    const out = results(events);
    expect(out[0]).toBe(
      `denied: ${join(checkout, 'stolen.txt')} is outside the workspace ${repo}; change files inside the workspace only`,
    );
    expect(out[1]).toBe(
      `denied: ../${SIBLING} is outside the workspace ${repo}; change files inside the workspace only`,
    );
    expect(out[2]).toContain(`(it leads to ${join(checkout, 'app.js')})`);
    expect(out[3]).toMatch(/^denied: \.git\/config is git metadata \(\.git\)/);
    expect(out[4]).toBe('created ok.txt (5 bytes)');
    expect((await readdir(checkout)).sort()).toEqual(['app.js']);
    expect(await readFile(join(checkout, 'app.js'), 'utf8')).toBe('app\n');
    expect(await readFile(join(repo, '.git/config'), 'utf8')).not.toContain('fsmonitor');
    await expect(readFile(join(dirname(repo), SIBLING))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('full: the gate allows, and the tools still refuse every path outside the workspace', async () => {
    const { events, checkout } = await run('full');
    const out = results(events);
    expect(out.slice(0, 3)).toEqual([
      expect.stringMatching(/^invalid input for write_file: refused: .*stolen\.txt is outside the workspace/),
      expect.stringMatching(/^invalid input for write_file: refused: \.\.\/sibling-.*\.txt is outside the workspace/),
      expect.stringMatching(
        /^invalid input for edit: refused: link\/app\.js is outside the workspace .* \(it leads to /,
      ),
    ]);
    // Posture full is for sandboxes: git metadata is the agent's to change there.
    expect(out[3]).toBe(`replaced .git/config (${Buffer.byteLength(FSMONITOR)} bytes)`);
    expect((await readdir(checkout)).sort()).toEqual(['app.js']);
    expect(await readFile(join(checkout, 'app.js'), 'utf8')).toBe('app\n');
  });
});
