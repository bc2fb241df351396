/**
 * `--metrics-port` on every command that drives agents: `neo flow resume` and `neo persona run`
 * serve their Prometheus metrics on 127.0.0.1 while they run, like `neo flow run`. Each test
 * scrapes /metrics while the agent's session is open (its command waits for the scrape).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { spawnNeo, waitForOutput } from './flow-helpers.js';

/** A script agent whose command waits until `scraped` exists, then writes a file. */
const waitingAgent = (scraped: string) => `turns:
  - actions:
      - run: { command: "while [ ! -e ${scraped} ]; do sleep 0.05; done" }
      - write: { path: done.txt, content: "done\\n" }
      - say: Done.
`;

/** Reads the endpoint neo printed, scrapes it until a session has started, then lets the agent go on. */
async function scrapeWhileRunning(child: ResultPromise, scraped: string): Promise<string> {
  const url = (await waitForOutput(child, /neo: metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/, 'stderr'))[1]!;
  const deadline = Date.now() + 30_000;
  let text = '';
  while (!/^code_session_started_total\{[^}]*\} 1$/m.test(text)) {
    if (Date.now() > deadline) throw new Error(`no session started in the metrics:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    text = await response.text();
  }
  await writeFile(scraped, '');
  return text;
}

describe('--metrics-port beyond neo flow run', () => {
  it('neo flow resume serves the resumed run’s metrics on 127.0.0.1 while it runs', async () => {
    const root = await tempDir('neo-metrics-');
    const dir = join(root, 'p');
    const home = join(root, 'home');
    const scraped = join(root, 'scraped');
    await writeTree(dir, {
      'plan.yaml': `name: metered
workspace: { isolation: copy }
defaults: { backend: script, maxPosture: full }
steps:
  - { id: ready, run: 'test -e ${join(root, 'go')}' }
  - id: work
    needs: [ready]
    brief: Wait, then write done.txt.
    script: agent.yaml
    posture: full
`,
      'agent.yaml': waitingAgent(scraped),
    });
    const env = { NEO_HOME: home };
    const first = await runNeo(['flow', 'run', 'plan.yaml', '--json'], { cwd: dir, env });
    expect(first.exitCode).toBe(1);
    const runId = JSON.parse(first.stdout.trim().split('\n')[0]!).runId as string;
    await writeFile(join(root, 'go'), '');

    const resume = spawnNeo(['flow', 'resume', runId, '--metrics-port', '0'], { cwd: dir, home });
    const text = await scrapeWhileRunning(resume, scraped);
    expect(text).toMatch(/^# TYPE code_session_started_total counter$/m);
    const result = await resume;
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/✓ metered succeeded/);
  });

  it('neo persona run serves the persona’s metrics on 127.0.0.1 while it runs', async () => {
    const root = await tempDir('neo-metrics-');
    const home = join(root, 'home');
    const scraped = join(root, 'scraped');
    await writeTree(root, { 'agent.yaml': waitingAgent(scraped), 'work/README.md': '# work\n' });
    const child = spawnNeo(
      [
        'persona',
        'run',
        '--backend',
        'script',
        '--script',
        join(root, 'agent.yaml'),
        '--cwd',
        join(root, 'work'),
        '--brief',
        'Wait, then write done.txt.',
        '--metrics-port',
        '0',
      ],
      { cwd: root, home },
    );
    const text = await scrapeWhileRunning(child, scraped);
    expect(text).toMatch(/^code_specialist_dispatched_total\{[^}]*\} 1$/m);
    await child;
  });

  it('a port that is not one is a usage error naming the option, before anything runs', async () => {
    const root = await tempDir('neo-metrics-');
    const env = { NEO_HOME: join(root, 'home') };
    const resume = await runNeo(['flow', 'resume', '20261202-000000-abcdef', '--metrics-port', 'x'], {
      cwd: root,
      env,
    });
    const persona = await runNeo(['persona', 'run', '--brief', 'b', '--backend', 'script', '--metrics-port', '99999'], {
      cwd: root,
      env,
    });
    for (const result of [resume, persona]) {
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain('CLI_BAD_PORT');
    }
  });
});
