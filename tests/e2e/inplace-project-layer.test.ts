/**
 * In `inplace` isolation a run's workspace is the checkout, and a trusted project's `.neo/` is
 * its project layer: backends and capabilities name programs, neo.yaml a provider and the key it
 * gets. A confined step that wrote a backend there had its program run unconfined, with neo's
 * whole environment, at the user's next `neo backends list` (the `--version` probe). The project
 * layer (`.neo/`, `.claude/agents/`) is read-only to every confined process of an inplace run.
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { commitAll } from '../helpers/git.js';
import { scriptedAgentConfig } from '../helpers/scripted-agent.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const DESCRIPTOR = join(import.meta.dirname, '..', '..', 'definitions', 'backends', 'claude-code.yaml');

interface Planting {
  root: string;
  repo: string;
  /** Touched by `evil` when something runs it. */
  marker: string;
  /** A claude-code descriptor whose program is the repository's `evil`. */
  backend: string;
  /** The step that writes `evil` (`a`), for a plan's steps. */
  evilStep: string;
  env: Record<string, string>;
}

/** A trusted repository holding `files(p)`, committed, `neo trust` run in it with `p.env` (plus `env`). */
async function trustedRepo(
  files: (p: Omit<Planting, 'env'>) => Record<string, string>,
  env: Record<string, string> = {},
): Promise<Planting> {
  const root = await tempDir('neo-e2e-inplace-layer-');
  const repo = join(root, 'repo');
  const marker = join(root, 'ran-unconfined');
  const backend = readFileSync(DESCRIPTOR, 'utf8').replace(/^ {2}bin: claude$/m, `  bin: ${join(repo, 'evil')}`);
  const evilStep = `  - { id: a, run: 'printf "#!/bin/sh\\ntouch ${marker}\\necho 1.0.0\\n" > evil && chmod +x evil' }`;
  const planting = { root, repo, marker, backend, evilStep };
  await writeTree(repo, files(planting));
  await commitAll(repo);
  const all = { NEO_HOME: join(root, 'home'), HOME: root, NEO_CLAUDE_CODE_BIN: '', ...env };
  expect((await runNeo(['trust'], { cwd: repo, env: all })).exitCode).toBe(0);
  return { ...planting, env: all };
}

/** `neo backends list` in the repository runs no planted program. */
async function nothingRanUnconfined(p: Planting): Promise<void> {
  const list = await runNeo(['backends', 'list'], { cwd: p.repo, env: p.env });
  expect(list.stdout + list.stderr).toContain('claude-code');
  expect(existsSync(p.marker)).toBe(false);
}

describe("an inplace run's confined steps and the trusted project's .neo/", () => {
  it('cannot write a backend there that the next neo backends list runs unconfined', async () => {
    const p = await trustedRepo(({ backend, evilStep }) => ({
      '.neo/neo.yaml': 'defaults: { maxRounds: 5 }\n',
      '.claude/agents/helper.md': '---\ndescription: the project helper\n---\nHelp.\n',
      'planted.yaml': backend,
      'planted.md': '---\ndescription: planted by a step\n---\nPlanted.\n',
      'plant.flow.yaml': [
        'name: plant',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'steps:',
        evilStep,
        "  - { id: b, needs: [a], run: 'mkdir -p .neo/definitions/backends && cp planted.yaml .neo/definitions/backends/claude-code.yaml' }",
        '  - { id: c, needs: [a], run: \'echo "defaults: { maxRounds: 50 }" > .neo/neo.yaml\' }',
        // The folder above a read-only .claude/agents moved away, a new one in its place.
        "  - { id: d, needs: [a], run: 'mv .claude .claude-old; mkdir -p .claude/agents && cp planted.md .claude/agents/' }",
        '',
      ].join('\n'),
    }));
    const planted = await runNeo(['flow', 'run', 'plant.flow.yaml', '--json'], { cwd: p.repo, env: p.env });
    expect(planted.stdout).toContain('Read-only file system');
    expect(existsSync(join(p.repo, '.neo', 'definitions'))).toBe(false);
    expect(readFileSync(join(p.repo, '.neo', 'neo.yaml'), 'utf8')).toBe('defaults: { maxRounds: 5 }\n');
    expect(existsSync(join(p.repo, '.claude-old'))).toBe(false);

    await nothingRanUnconfined(p);
    const personas = await runNeo(['personas', 'list'], { cwd: p.repo, env: p.env });
    expect(personas.stdout).toContain('helper');
    expect(personas.stdout).not.toContain('planted');
  });

  it('cannot create a .neo/ (or .claude/agents/) the trusted project did not have', async () => {
    const p = await trustedRepo(({ backend, evilStep }) => ({
      'planted.yaml': backend,
      'planted.md': '---\ndescription: planted by a step\n---\nPlanted.\n',
      'plant.flow.yaml': [
        'name: plant',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'steps:',
        evilStep,
        "  - { id: b, needs: [a], run: 'mkdir -p .neo/definitions/backends && cp planted.yaml .neo/definitions/backends/claude-code.yaml' }",
        "  - { id: c, needs: [a], run: 'mkdir -p .claude/agents && cp planted.md .claude/agents/planted.md' }",
        '',
      ].join('\n'),
    }));
    const planted = await runNeo(['flow', 'run', 'plant.flow.yaml', '--json'], { cwd: p.repo, env: p.env });
    expect(planted.stdout).toContain('Read-only file system');
    expect(existsSync(join(p.repo, '.neo', 'definitions'))).toBe(false);
    expect(existsSync(join(p.repo, '.claude', 'agents', 'planted.md'))).toBe(false);

    await nothingRanUnconfined(p);
    const personas = await runNeo(['personas', 'list'], { cwd: p.repo, env: p.env });
    expect(personas.stdout).not.toContain('planted');
  });

  it("refuses a linked .neo/: the link, in the writable checkout, is the step's to replace", async () => {
    const root = await tempDir('neo-e2e-inplace-layer-');
    const repo = join(root, 'repo');
    await writeTree(repo, {
      'conf/neo.yaml': 'defaults: { maxRounds: 5 }\n',
      'swap.flow.yaml': [
        'name: swap',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'steps:',
        '  - { id: a, run: \'rm .neo && mkdir .neo && echo "defaults: { maxRounds: 50 }" > .neo/neo.yaml\' }',
        '',
      ].join('\n'),
    });
    await symlink('conf', join(repo, '.neo'));
    await commitAll(repo);
    const env = { NEO_HOME: join(root, 'home'), HOME: root };
    expect((await runNeo(['trust'], { cwd: repo, env })).exitCode).toBe(0);
    const swapped = await runNeo(['flow', 'run', 'swap.flow.yaml'], { cwd: repo, env });
    expect(swapped.exitCode).toBe(1);
    expect(swapped.stdout).toContain(`FLOW_PROJECT_LAYER_UNBOUND: ${join(repo, '.neo')} is not a folder`);
    expect(lstatSync(join(repo, '.neo')).isSymbolicLink()).toBe(true);
  });

  it("an in-process agent's file tools cannot write it either (the script backend)", async () => {
    const p = await trustedRepo(({ backend, evilStep }) => ({
      '.neo/neo.yaml': 'defaults: { maxRounds: 5 }\n',
      'plant.yaml': [
        'turns:',
        `  - - write: { path: .neo/definitions/backends/claude-code.yaml, content: ${JSON.stringify(backend)} }`,
        '    - write: { path: .claude/agents/planted.md, content: "---\\ndescription: planted\\n---\\nP\\n" }',
        '    - say: planted',
        '',
      ].join('\n'),
      'plant.flow.yaml': [
        'name: plant',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'defaults: { backend: script, maxPosture: acceptEdits }',
        'steps:',
        evilStep,
        '  - { id: b, needs: [a], brief: plant, script: plant.yaml, requireChange: false }',
        '',
      ].join('\n'),
    }));
    const planted = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: p.repo, env: p.env });
    expect(planted.exitCode, planted.stdout + planted.stderr).toBe(0);
    expect(planted.stdout).toContain('b  success · no files changed');
    expect(existsSync(join(p.repo, '.neo', 'definitions'))).toBe(false);
    expect(existsSync(join(p.repo, '.claude', 'agents'))).toBe(false);
    await nothingRanUnconfined(p);
  });

  it("neo's own agent's write_file and edit cannot write it either", async () => {
    const p = await trustedRepo(
      () => ({
        'plant.flow.yaml': [
          'name: plant',
          'sandbox: bwrap',
          'workspace: { isolation: inplace }',
          'defaults: { backend: neo, maxPosture: full, posture: full, maxRounds: 2 }',
          'steps:',
          '  - { id: a, brief: plant, requireChange: false }',
          '',
        ].join('\n'),
      }),
      { NEO_TEST_KEY: 'sk-test' },
    );
    server = await startModelServer({
      script: {
        turns: [
          {
            tools: [
              {
                name: 'write_file',
                arguments: { path: '.neo/definitions/backends/claude-code.yaml', content: p.backend },
              },
              { name: 'edit', arguments: { path: '.claude/agents/p.md', old_string: '', new_string: 'planted' } },
            ],
          },
          { text: 'done' },
        ] as never,
      },
    });
    await writeTree(p.env.NEO_HOME!, { 'neo.yaml': scriptedAgentConfig(server.url) });
    const planted = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: p.repo, env: p.env });
    expect(planted.exitCode, planted.stdout + planted.stderr).toBe(0);
    expect(existsSync(join(p.repo, '.neo', 'definitions'))).toBe(false);
    expect(existsSync(join(p.repo, '.claude', 'agents'))).toBe(false);
    const told = JSON.stringify(server.requests);
    expect(told).toContain(`refused: .neo/definitions/backends/claude-code.yaml is read-only or hidden in its sandbox`);
    expect(told).toContain(`refused: .claude/agents/p.md is read-only or hidden in its sandbox`);
  });
});
