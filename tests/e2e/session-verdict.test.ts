/**
 * A person's session through the binary: the verdict they give when they stop it is what the
 * learning loop records (as theirs), and `neo session --help` lists the daemon the docs send them to.
 */
import { execa } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const homes: string[] = [];
afterEach(async () => {
  while (homes.length > 0) await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: homes.pop()! } });
});

async function setup() {
  const home = await tempDir('neo-e2e-verdict-home-');
  homes.push(home);
  const repo = await tempDir('neo-e2e-verdict-repo-');
  await execa('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  const script = join(home, 'script.yaml');
  await writeFile(script, 'turns:\n  - - say: Looked at it.\n  - - say: never reached\n');
  const neo = (...args: string[]) =>
    runNeo(args, { cwd: repo, env: { NEO_HOME: home, NEO_SESSION_DAEMON_IDLE_MS: '1500' } });
  const session = async () => {
    const started = await neo(
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      script,
      '--brief',
      'look',
      '--json',
    );
    expect(started.exitCode, started.stderr).toBe(0);
    const { sessionId } = JSON.parse(started.stdout) as { sessionId: string };
    expect(JSON.parse((await neo('session', 'read', sessionId, '--json')).stdout).kind).toBe('turn_complete');
    return sessionId;
  };
  const outcomes = async () =>
    (await readFile(join(home, 'learning', 'harness-outcomes.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { neo, session, outcomes };
}

describe("a person's session", () => {
  it("`neo session stop --outcome partial` is learned as the person's verdict; a stop without one is inferred", async () => {
    const { neo, session, outcomes } = await setup();
    const judged = await session();
    expect((await neo('session', 'stop', judged, '--outcome', 'partial', '--note', 'half of it')).exitCode).toBe(0);
    const plain = await session();
    expect((await neo('session', 'stop', plain)).exitCode).toBe(0);
    const records = await outcomes();
    expect(records.find((r) => r.sessionId === judged)).toMatchObject({
      outcome: 'partial',
      outcomeSource: 'person',
      failureReason: 'half of it',
    });
    expect(records.find((r) => r.sessionId === plain)).toMatchObject({ outcome: 'success', outcomeSource: 'inferred' });
  });

  it('`neo session --help` lists the daemon', async () => {
    const help = await runNeo(['session', '--help']);
    expect(help.stdout).toMatch(/^\s+daemon \[options\]\s+run the session daemon/m);
  });
});
