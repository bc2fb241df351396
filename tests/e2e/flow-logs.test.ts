/**
 * A flow run's decisions as JSON lines in its folder, read back with `neo flow logs`; the same
 * run with --metrics-port serves its metrics and exports them over OTLP to a loopback collector.
 */
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const SCRIPTS = fileURLToPath(new URL('../fixtures/flows/scripts/', import.meta.url));

let collector: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (collector ? collector.close(() => resolve()) : resolve()));
  collector = undefined;
});

describe('neo flow logs', () => {
  it("prints the run's step and session decisions, with levels; OTLP receives the run's metrics", async () => {
    const bodies: string[] = [];
    collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => (bodies.push(Buffer.concat(chunks).toString('utf8')), res.writeHead(200).end('{}')));
    });
    const server = collector;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as { port: number }).port;

    const root = await tempDir('neo-logs-');
    const dir = join(root, 'project');
    const home = join(root, 'home');
    await writeTree(dir, {
      'plan.yaml': `
name: logs
defaults: { backend: script, maxRounds: 4 }
steps:
  - id: work
    brief: Make the check pass.
    script: ${join(SCRIPTS, 'claims-done.yaml')}
    verify: { run: 'test -f ok', attempts: 1 }
`,
    });
    const env = { NEO_HOME: home, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` };
    const run = await runNeo(['flow', 'run', 'plan.yaml', '--json', '--metrics-port', '0'], { cwd: dir, env });
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(/neo: metrics on http:\/\/127\.0\.0\.1:\d+\/metrics/);
    const runId = JSON.parse(run.stdout.trim().split('\n')[0]!).runId as string;

    const lines = (await readFile(join(home, 'runs', runId, 'decisions.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const events = lines.map((l) => `${l.level} ${l.event}`);
    expect(events).toEqual(
      expect.arrayContaining([
        'info flow_step_started',
        'info code_session_created',
        'info code_session_read_turn',
        'info code_session_released',
        'warn flow_step_completed',
        'warn flow_run_finished',
      ]),
    );
    expect(lines.find((l) => l.event === 'flow_step_completed')).toMatchObject({
      step: 'work',
      status: 'failed',
      verdict: 'failed',
      code: 'FLOW_GATE_FAILED',
    });

    const logs = await runNeo(['flow', 'logs', runId.slice(0, 12), '--level', 'warn'], { env: { NEO_HOME: home } });
    expect(logs.exitCode).toBe(0);
    const printed = logs.stdout.split('\n');
    expect(printed.every((l) => / warn  /.test(l))).toBe(true);
    expect(printed.some((l) => l.includes('flow_step_completed') && l.includes('code=FLOW_GATE_FAILED'))).toBe(true);

    const bad = await runNeo(['flow', 'logs', runId, '--level', 'loud'], { env: { NEO_HOME: home } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('CLI_BAD_LEVEL');

    const exported = bodies.join('\n');
    expect(exported).toContain('"name":"code_session_started_total"');
    expect(exported).toContain('"name":"code_session_settled_total"');
  });
});
