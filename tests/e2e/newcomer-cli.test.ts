/** The rough edges a newcomer meets first, each tried through the `neo` binary as they would. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';

async function sandbox() {
  const root = await tempDir();
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  await writeTree(root, { 'repo/README.md': 'hello\n', 'home/.keep': '' });
  await commitAll(repo);
  return { home, repo, env: { NEO_HOME: home } };
}

/** The `yaml.schemas` mapping `neo init` prints: the JSON object after the `editor` line. */
function printedMapping(stdout: string): Record<string, string> {
  const start = stdout.indexOf('\n{') + 1;
  const end = stdout.indexOf('\n}', start) + 2;
  return (JSON.parse(stdout.slice(start, end)) as { 'yaml.schemas': Record<string, string> })['yaml.schemas'];
}

const FLOW = `name: drive
steps:
  - id: hello
    run: node -e "console.log('hi')"
`;

describe('a newcomer', () => {
  it('runs a flow file named on the command line whatever its name', async () => {
    const { repo, env } = await sandbox();
    await writeTree(repo, { 'drive-plan.yaml': FLOW, 'sub/checks.yml': FLOW.replace('drive', 'checks') });
    const dry = await runNeo(['flow', 'run', 'drive-plan.yaml', '--dry-run'], { cwd: repo, env });
    expect(dry.stderr).toBe('');
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain('hello');
    const valid = await runNeo(['flow', 'validate', 'sub/checks.yml'], { cwd: repo, env });
    expect(valid.exitCode).toBe(0);
    // A file that is no flow still fails, on what it holds rather than on its name.
    await writeTree(repo, { 'notes.yaml': 'title: not a flow\n' });
    const bad = await runNeo(['flow', 'run', 'notes.yaml', '--dry-run'], { cwd: repo, env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).not.toContain('FLOW_NOT_A_FLOW_FILE');
  });

  it('is told about a definition file neo will not load, with where it belongs', async () => {
    const { repo, env } = await sandbox();
    const backend = await readFile(new URL('../../definitions/backends/script.yaml', import.meta.url), 'utf8');
    await writeTree(repo, {
      '.neo/backends/mine.yaml': backend.replace(/^id: script$/m, 'id: mine'),
      '.neo/agents/helper.md': '---\ndescription: helper\n---\nHelp.\n',
      '.neo/README.md': 'not a definition\n',
    });
    const result = await runNeo(['validate'], { cwd: repo, env });
    expect(result.exitCode).toBe(0);
    const out = result.stdout + result.stderr;
    expect(out).toContain('warning[DEF_NOT_LOADED]: .neo/backends/mine.yaml looks like a definition');
    expect(out).toContain('move it to .neo/definitions/backends/');
    expect(out).toContain('warning[DEF_NOT_LOADED]: .neo/agents/helper.md');
    expect(out).not.toContain('README');
  });

  it('gets from neo init a flow that names a backend', async () => {
    const { repo, env } = await sandbox();
    expect((await runNeo(['init'], { cwd: repo, env })).exitCode).toBe(0);
    const flow = await readFile(join(repo, '.neo', 'flows', 'check-and-fix.flow.yaml'), 'utf8');
    expect(flow).toMatch(/^ {2}backend: claude-code$/m);
    const dry = await runNeo(['flow', 'run', '.neo/flows/check-and-fix.flow.yaml', '--dry-run'], { cwd: repo, env });
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain('claude-code');
  });

  it('gets modelines that resolve from the project, and the editor mapping for .neo/', async () => {
    const bare = await sandbox();
    const init = await runNeo(['init'], { cwd: bare.repo, env: bare.env });
    const flowFile = join(bare.repo, '.neo', 'flows', 'check-and-fix.flow.yaml');
    const modeline = (await readFile(flowFile, 'utf8')).split('\n')[0]!;
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    // No copy of neo in the project: the published schema of this very package and version,
    // never an absolute path, never the npm name `neo` (someone else's package).
    expect(modeline).toBe(
      `# yaml-language-server: $schema=https://unpkg.com/neo-flow@${version}/schemas/flow.schema.json`,
    );
    const mapping = printedMapping(init.stdout);
    expect(Object.keys(mapping)[0]).toBe(`https://unpkg.com/neo-flow@${version}/schemas/flow.schema.json`);
    expect(init.stdout).toContain('npm install --save-dev neo-flow');
    expect(Object.values(mapping)).toEqual([
      '.neo/flows/*.yaml',
      '.neo/definitions/backends/*.yaml',
      '.neo/definitions/policies/*.yaml',
      '.neo/definitions/capabilities/*.yaml',
      '.neo/definitions/routing/*.yaml',
      '.neo/neo.yaml',
    ]);
    const schema = JSON.parse(await readFile(new URL('../../schemas/flow.schema.json', import.meta.url), 'utf8')) as {
      $id: string;
    };
    expect(schema.$id).toBe(`https://unpkg.com/neo-flow@${version}/schemas/flow.schema.json`);

    const installed = await sandbox();
    await writeTree(installed.repo, {
      'node_modules/neo-flow/schemas/flow.schema.json': '{}',
      'node_modules/neo-flow/schemas/persona.schema.json': '{}',
    });
    const local = await runNeo(['init'], { cwd: installed.repo, env: installed.env });
    const flow = await readFile(join(installed.repo, '.neo', 'flows', 'check-and-fix.flow.yaml'), 'utf8');
    expect(flow.split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../../node_modules/neo-flow/schemas/flow.schema.json',
    );
    expect(Object.keys(printedMapping(local.stdout))[0]).toBe('node_modules/neo-flow/schemas/flow.schema.json');
    // Persona frontmatter (Markdown): remark-lint-frontmatter-schema's association, for the local schema.
    expect(local.stdout).toContain(
      `{ schemas: { "node_modules/neo-flow/schemas/persona.schema.json": ['.neo/personas/*.md'] } }`,
    );
  });
});
