/**
 * neo's own agent takes the `.env` values its provider's `${NAME}` references fall back on from
 * the files as they were when the run started, never from a `.neo/.env` a confined step wrote
 * since. In `inplace` isolation of a trusted project the workspace is the checkout whose `.neo/`
 * holds the project's `.env`: a network-off run step that adds or changes a key there must not
 * change the key (or the provider) the next agent step sends.
 *
 * The scripted provider echoes its key's reference in a header the model server logs unredacted
 * (`x-key-seen`), so the test sees which value the agent resolved.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { writeTree } from '../helpers/temp.js';
import { git, onlyRunId } from './flow-helpers.js';
import { agentProject, type AgentProject } from './neo-agent-helpers.js';

let project: AgentProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const TALK = '{ id: talk, needs: [plant], backend: neo, brief: say hi, requireChange: false }';
// Unconfined: an inplace run's confined steps cannot write .neo/ (tests/e2e/inplace-project-layer).
const PLANT = `{ id: plant, sandbox: none, run: "mkdir -p .neo && printf 'NEO_TEST_KEY=sk-planted\\\\n' > .neo/.env" }`;

/** A trusted project whose flow runs `steps` (by default: plant `NEO_TEST_KEY=sk-planted` in `.neo/.env`, then talk). */
async function plantingProject(
  atStart: Record<string, string>,
  steps = [PLANT, TALK],
): Promise<{ env: Record<string, string> }> {
  project = await agentProject([{ text: 'hello from the real provider' }]);
  const { repo, home, server } = project;
  await writeTree(home, {
    'neo.yaml': [
      'providers:',
      '  scripted:',
      '    api: anthropic',
      `    baseUrl: ${server.url}`,
      '    apiKey: ${NEO_TEST_KEY}',
      '    headers: { x-key-seen: "${NEO_TEST_KEY}" }',
      'agent: { provider: scripted, model: scripted-model }',
      '',
    ].join('\n'),
  });
  await writeTree(repo, {
    ...atStart,
    'plant.flow.yaml': [
      'name: plant',
      'sandbox: bwrap',
      'workspace: { isolation: inplace }',
      'steps:',
      ...steps.map((step) => `  - ${step}`),
      '',
    ].join('\n'),
  });
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'flow');
  // The key is in no environment variable: only the .env files can give it.
  const { NEO_TEST_KEY: _unset, ...rest } = project.env;
  const env = { ...rest, HOME: join(home, '..') };
  expect((await runNeo(['trust'], { cwd: repo, env })).exitCode).toBe(0);
  return { env };
}

describe("neo's own agent: .env pinned at the run's start", () => {
  it("a key a confined step writes into the project's .env replaces none the run started with", async () => {
    const { env } = await plantingProject({ '.neo/.env': 'NEO_TEST_KEY=sk-at-start\n' });
    const { repo, home, server } = project!;
    await writeTree(home, { '.env': 'NEO_TEST_KEY=sk-user\n' });

    const result = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: repo, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const seen = server.requests.filter((r) => r.role === 'main').map((r) => r.headers['x-key-seen']);
    expect(seen.length).toBeGreaterThan(0);
    // The project's .env as the run started (it wins over the user's), never the planted one.
    expect(new Set(seen)).toEqual(new Set(['sk-at-start']));
  });

  it('a key a confined step adds to the .env is not there for the next agent step', async () => {
    const { env } = await plantingProject({});
    const { repo, server } = project!;

    const result = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: repo, env });
    expect(server.requests.filter((r) => r.role === 'main')).toHaveLength(0);
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('${NEO_TEST_KEY}, which is not set');
    // Said before the planting step could run (tests/e2e/flow-backend-preflight): nothing was planted.
    expect(result.stderr).toContain('error[FLOW_BACKEND_UNAVAILABLE]');
    expect(existsSync(join(repo, '.neo', '.env'))).toBe(false);
  });

  it("a driver persona's llm decider does not take a key a confined step adds to the .env", async () => {
    const driver = [
      '---',
      'description: Drives with the scripted model.',
      'driver: true',
      'decide: llm',
      'maxPosture: acceptEdits',
      '---',
      'You drive.',
      '',
    ].join('\n');
    const { env } = await plantingProject({ '.neo/personas/driver.md': driver }, [
      PLANT,
      '{ id: drive, needs: [plant], persona: driver, backend: neo, brief: say hi, requireChange: false }',
    ]);
    const { repo, server } = project!;

    const result = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: repo, env });
    expect(server.requests.filter((r) => r.role === 'main')).toHaveLength(0);
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('${NEO_TEST_KEY}, which is not set');
  });

  it('a resumed run reads the .env files again when it starts', async () => {
    // A key at the start (a run without one is refused before it starts: tests/e2e/flow-backend-preflight),
    // and a first step that fails until the user makes `go`.
    const { env } = await plantingProject({}, [
      '{ id: gate, sandbox: none, run: "test -f go" }',
      '{ id: talk, needs: [gate], backend: neo, brief: say hi, requireChange: false }',
    ]);
    const { repo, home, server } = project!;
    await writeTree(home, { '.env': 'NEO_TEST_KEY=sk-old\n' });

    const failed = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: repo, env });
    expect(failed.exitCode, failed.stdout + failed.stderr).toBe(1);
    const runId = await onlyRunId(home);
    expect(server.requests.filter((r) => r.role === 'main')).toHaveLength(0);

    // The user changes the key, then resumes: the resume is a new start and reads the files now.
    await writeTree(repo, { go: '' });
    await writeTree(home, { '.env': 'NEO_TEST_KEY=sk-user\n' });
    const resumed = await runNeo(['flow', 'resume', runId], { cwd: repo, env });
    expect(resumed.exitCode, resumed.stdout + resumed.stderr).toBe(0);
    const seen = server.requests.filter((r) => r.role === 'main').map((r) => r.headers['x-key-seen']);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['sk-user']));
  });
});
