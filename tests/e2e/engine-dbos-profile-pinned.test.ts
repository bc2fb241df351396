/**
 * A dbos run taken over by another worker keeps the capability profile its first start detected.
 * The takeover reads the project again after the run's confined steps wrote it: a file a step
 * planted (`planted.toml`, the detection rule of a T0 catalog entry whose MCP server needs no
 * approval) must not give the survivor's agent step that server.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { detachedRunAt, freshDatabase, killOwner, runEnded, startTwoWorkers, useDbos } from './dbos-helpers.js';
import { offeredTools } from './neo-agent-helpers.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url));
const dbos = useDbos();
const { workers } = dbos;
let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A worker's NEO_HOME files: neo's agent on the scripted server, and the T0 entry detected by planted.toml. */
function workerHome(url: string): Record<string, string> {
  const entry = {
    description: 'fixture tools',
    trustTier: 'T0',
    source: { kind: 'npm', package: 'fixture-mcp', version: '1.0.0' },
    detect: [{ fileExists: 'planted.toml' }],
    provides: { mcpServers: { fx: { command: process.execPath, args: [FIXTURE], readOnly: ['lookup'] } } },
  };
  return {
    'neo.yaml': [
      'providers:',
      '  scripted:',
      '    api: anthropic',
      `    baseUrl: ${url}`,
      '    apiKey: ${NEO_TEST_KEY}',
      'agent: { provider: scripted, model: scripted-model }',
      '',
    ].join('\n'),
    // The worker's key, as a worker keeps its secrets: its environment or its NEO_HOME's .env.
    '.env': 'NEO_TEST_KEY=sk-test\n',
    'definitions/capabilities/planted.yaml': JSON.stringify(entry),
  };
}

describe('dbos engine: a takeover keeps the run’s capability profile', () => {
  it('a file a confined step planted before its worker died enables nothing for the survivor’s agent step', async () => {
    server = await startModelServer({ script: { turns: [{ text: 'done' }] as never } });
    const url = await freshDatabase(dbos.db);
    const dir = await tempDir('neo-dbos-profile-');
    await writeTree(dir, {
      'plan.yaml': [
        'name: profile',
        'workspace: { isolation: inplace }',
        'steps:',
        '  - { id: plant, sandbox: bwrap, run: "touch planted.toml" }',
        '  - id: wait',
        '    needs: [plant]',
        '    run: if [ ! -e in-wait ]; then touch in-wait; sleep 60; fi',
        '  - { id: talk, needs: [wait], backend: neo, brief: say hi, requireChange: false }',
        '',
      ].join('\n'),
    });
    const root = await tempDir('neo-dbos-profile-workers-');
    workers.push(...(await startTwoWorkers(url, root, { files: workerHome(server.url) })));
    const runId = await detachedRunAt(url, dir, join(dir, '.client-home'), 'in-wait');
    expect(existsSync(join(dir, 'planted.toml'))).toBe(true);

    const { survivor } = await killOwner(url, runId, workers);
    const done = await runEnded(url, runId);
    const why = await runNeo(['flow', 'show', runId, '--engine', 'dbos', '--database-url', url], {
      env: { NEO_HOME: join(dir, '.client-home') },
    });
    expect(done, why.stdout).toEqual({ status: 'succeeded', executor: survivor.id });
    const sessions = join(survivor.home, 'code-sessions');
    const [id] = readdirSync(sessions).filter((n) => n.startsWith('cs_'));
    const record = JSON.parse(readFileSync(join(sessions, id!, 'meta.json'), 'utf8')) as {
      provision: { detected: Array<{ id: string }>; applied: string[] };
    };
    expect(record.provision.detected.map((d) => d.id)).not.toContain('planted');
    expect(record.provision.applied).not.toContain('planted:mcp:fx');
    expect(offeredTools(server.requests[0]!.body).filter((t) => t.startsWith('mcp__fx__'))).toEqual([]);
  });
});
