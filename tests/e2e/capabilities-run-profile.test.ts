/**
 * A flow detects the project's capabilities once, when its run starts, from the project the plan
 * belongs to; every agent step of the run gets that profile. A file a confined step writes into
 * the workspace mid-run (in `inplace` isolation the workspace is the checkout) turns no
 * capability on for a later step of the same run: the next run sees it.
 *
 * The catalog entry is a T0 (no approval) whose stdio MCP server is the SDK fixture, detected by
 * `planted.toml`: the session record's `provision` and the tools offered to the scripted model
 * say whether a step got it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { writeTree } from '../helpers/temp.js';
import { git, onlyRunId } from './flow-helpers.js';
import { agentProject, offeredTools, type AgentProject } from './neo-agent-helpers.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url));

let project: AgentProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const PLANT = '{ id: plant, sandbox: bwrap, run: "touch planted.toml" }';

async function plantingProject(plant = PLANT): Promise<AgentProject> {
  project = await agentProject([{ text: 'first run' }, { text: 'second run' }]);
  const { repo, home } = project;
  const entry = {
    description: 'fixture tools',
    trustTier: 'T0',
    source: { kind: 'npm', package: 'fixture-mcp', version: '1.0.0' },
    detect: [{ fileExists: 'planted.toml' }],
    provides: { mcpServers: { fx: { command: process.execPath, args: [FIXTURE], readOnly: ['lookup'] } } },
  };
  await writeTree(home, { 'definitions/capabilities/planted.yaml': JSON.stringify(entry) });
  await writeTree(repo, {
    'plant.flow.yaml': [
      'name: plant',
      'workspace: { isolation: inplace }',
      'steps:',
      `  - ${plant}`,
      '  - { id: talk, needs: [plant], backend: neo, brief: say hi, requireChange: false }',
      '',
    ].join('\n'),
  });
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'flow');
  return project;
}

/** The session records of `home`, oldest first. */
function sessionRecords(home: string): Array<Record<string, any>> {
  const dir = join(home, 'code-sessions');
  return readdirSync(dir)
    .filter((n) => n.startsWith('cs_'))
    .map((id) => JSON.parse(readFileSync(join(dir, id, 'meta.json'), 'utf8')) as Record<string, any>)
    .sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
}

describe('capability detection pinned at the run start', () => {
  it('a file a confined step plants mid-run enables no capability for a later step; the next run has it', async () => {
    const { repo, home, server, env } = await plantingProject();

    const first = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: repo, env });
    expect(first.exitCode, first.stdout + first.stderr).toBe(0);
    const [during] = sessionRecords(home);
    expect(during!.provision.detected.map((d: { id: string }) => d.id)).not.toContain('planted');
    expect(during!.provision.applied).not.toContain('planted:mcp:fx');
    expect(offeredTools(server.requests[0]!.body).filter((t) => t.startsWith('mcp__fx__'))).toEqual([]);

    // The dry run shows what the next run will use: the file is in the project now.
    const dry = await runNeo(['flow', 'run', 'plant.flow.yaml', '--dry-run', '--json'], { cwd: repo, env });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).capabilities.talk.applied).toContain('planted:mcp:fx');

    const second = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: repo, env });
    expect(second.exitCode, second.stdout + second.stderr).toBe(0);
    const next = sessionRecords(home)[1]!;
    expect(next.provision.detected).toContainEqual({ id: 'planted', tier: 'T0', evidence: ['planted.toml'] });
    expect(next.provision.applied).toContain('planted:mcp:fx');
    expect(offeredTools(server.requests.at(-1)!.body)).toContain('mcp__fx__lookup');
  });

  it('a resume detects again when it starts: a file planted before the run stopped counts then', async () => {
    // Plants and fails the first time round; passes on the resume.
    const plant = `{ id: plant, sandbox: bwrap, run: 'if [ -f planted.toml ]; then exit 0; fi; touch planted.toml; exit 1' }`;
    const { repo, home, server, env } = await plantingProject(plant);

    const first = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: repo, env });
    expect(first.exitCode, first.stdout + first.stderr).toBe(1);
    expect(server.requests).toHaveLength(0);

    const resumed = await runNeo(['flow', 'resume', await onlyRunId(home)], { cwd: repo, env });
    expect(resumed.exitCode, resumed.stdout + resumed.stderr).toBe(0);
    const [record] = sessionRecords(home);
    expect(record!.provision.applied).toContain('planted:mcp:fx');
    expect(offeredTools(server.requests[0]!.body)).toContain('mcp__fx__lookup');
  });
});
