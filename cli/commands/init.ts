import { GitRepo, gitMarker, probeSandbox } from '../../engine/execution/index.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import {
  findRepoRoot,
  KIND_INFO,
  modelineRef,
  SCHEMA_FILES,
  type DefinitionKind,
} from '../../engine/definitions/index.js';
import { pathExists } from '../../engine/util/path-exists.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { UsageError } from '../../engine/util/errors.js';
import { EXIT } from '../exit-codes.js';
import { writeLine, type CommandIO } from '../io.js';

const PERSONA = `---
description: Makes focused changes in this repository and keeps the tests green.
tools: Read, Grep, Glob, Edit, Write, Bash
maxPosture: acceptEdits
maxRounds: 8
taskTags: [project]
---
You work in this repository. Before changing anything, read the code around the change and the
tests that cover it. Make the smallest change that does the job, match the surrounding style,
and run the relevant tests before you say you are done. If a test fails for a reason unrelated
to your change, say so instead of changing the test.
`;

/** Where `neo init` found bwrap working, the flow asks for it; elsewhere it says why not and how. */
const sandboxLines = (works: boolean) =>
  works
    ? `# Commands, the gate and the agent CLI run in bubblewrap (\`neo doctor\` checks it works here).
sandbox: bwrap
`
    : `# bubblewrap was not available when this file was written (\`neo doctor\` says why): set
# \`sandbox: bwrap\` once it is, to confine the commands, the gate and the agent CLI.
sandbox: none
`;

const flow = (modeline: string, sandboxWorks: boolean) => `${modeline}
name: check-and-fix
description: Run the tests; if they fail, let the project persona fix them and check again.
inputs:
  test:
    type: string
    default: npm test
    description: The command that must pass.
defaults:
  # The agent CLI that runs the steps; \`neo backends list\` shows every backend and whether it is ready.
  backend: claude-code
  maxPosture: acceptEdits
  maxRounds: 8
${sandboxLines(sandboxWorks)}steps:
  - id: fix
    persona: project-helper
    brief: "Make \`\${{ inputs.test }}\` pass without weakening any test."
    # The gate judges these as they were when the step started; an edit to one fails the step.
    protect: ["test/**", "tests/**", "**/*.test.*", "**/*.spec.*"]
    verify:
      run: npm test
      attempts: 3
`;

export async function run(io: CommandIO, dir: string | undefined, options: { force?: boolean }): Promise<number> {
  const repo = findRepoRoot(resolve(io.cwd, dir ?? '.'), { exclude: neoHome(io.env) });
  const dirty = await requireCommittedRepo(repo);
  const files: Array<[string, string]> = [
    [join(repo, '.neo', 'personas', 'project-helper.md'), PERSONA],
    [join(repo, '.neo', 'flows', 'check-and-fix.flow.yaml'), ''],
  ];
  const flowFile = files[1]![0];
  const sandbox = await probeSandbox('bwrap', io.env);
  files[1]![1] = flow(
    `# yaml-language-server: $schema=${modelineRef(flowFile, SCHEMA_FILES.flow, repo)}`,
    sandbox.available,
  );
  for (const [file] of files) {
    if (!options.force && (await pathExists(file))) {
      throw new UsageError('CLI_INIT_EXISTS', `${relative(io.cwd, file)} already exists`, {
        hint: 'pass --force to overwrite it',
      });
    }
  }
  for (const [file, text] of files) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    writeLine(io.stdout, `created ${relative(io.cwd, file) || file}`);
  }
  writeLine(io.stdout, `next: \`neo validate\`, then \`neo flow run ${relative(io.cwd, flowFile)}\``);
  writeLine(
    io.stdout,
    `  its steps work on ${repo} in a git worktree of your last commit (your checkout is never touched)${dirty ? '; commit what you want the agent to see first: uncommitted changes are not in the worktree' : ''}`,
  );
  writeLine(
    io.stdout,
    'editor (the YAML extension, redhat.vscode-yaml): to check every file under .neo/ as you type, add to .vscode/settings.json:',
  );
  writeLine(io.stdout, JSON.stringify({ 'yaml.schemas': editorMapping(repo) }, null, 2));
  for (const line of personaBinding(repo)) writeLine(io.stdout, line);
  return EXIT.ok;
}

/**
 * A flow runs in a git worktree of the project's last commit, so a folder without git or a
 * repository without a commit cannot run one: refused before anything is written, with the
 * commands that fix it. Returns whether the repository has uncommitted changes.
 */
async function requireCommittedRepo(repo: string): Promise<boolean> {
  if (gitMarker(repo) === undefined) {
    throw new UsageError(
      'CLI_INIT_NOT_GIT',
      `${repo} is not in a git repository: neo runs each flow in a git worktree of your last commit, so your checkout is never touched`,
      {
        hint: `make it one first: cd ${repo} && git init && git add -A && git commit -m "initial commit"; then \`neo init\` again`,
      },
    );
  }
  const git = await GitRepo.discover(repo);
  // git itself cannot run here: a run then works on a copy and says so; nothing to judge now.
  if (git === undefined) return false;
  const head = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (!head.ok || head.stdout.trim() === '') {
    throw new UsageError(
      'CLI_INIT_NO_COMMIT',
      `${git.location.top} has no commit yet: a flow's worktree starts from your last commit`,
      {
        hint: `commit your files first: cd ${git.location.top} && git add -A && git commit -m "initial commit"; then \`neo init\` again`,
      },
    );
  }
  return (await git.run(['status', '--porcelain'])).stdout.trim() !== '';
}

/**
 * Persona files are Markdown, which the YAML extension does not read: their frontmatter is
 * checked by remark-lint-frontmatter-schema (remark's linter, the VS Code extension
 * unifiedjs.vscode-remark), given the schema as a file. Offered when the schema is a file in the
 * project (neo-flow installed there); a URL is not a schema that linter loads.
 */
function personaBinding(repo: string): string[] {
  const ref = modelineRef(join(repo, '.remarkrc.mjs'), SCHEMA_FILES.persona, repo);
  if (ref.includes('://'))
    return [
      `personas (.neo/personas/*.md): install neo-flow in this project (npm install --save-dev neo-flow) to check their frontmatter in the editor too`,
    ];
  return [
    'personas (.neo/personas/*.md): their frontmatter is checked by remark-lint-frontmatter-schema (VS Code: unifiedjs.vscode-remark); in .remarkrc.mjs:',
    `  plugins: [remarkFrontmatter, [remarkLintFrontmatterSchema, { schemas: { ${JSON.stringify(ref)}: ['.neo/personas/*.md'] } }]]`,
  ];
}

/**
 * The YAML extension's `yaml.schemas` mapping for a project's `.neo/` folders (paths relative to
 * the project, as the editor reads them), so files without a modeline are checked too.
 */
function editorMapping(repo: string): Record<string, string> {
  const ref = (kind: DefinitionKind) => modelineRef(join(repo, 'settings.json'), SCHEMA_FILES[kind], repo);
  const folders = (['backend', 'policy', 'capability', 'routing'] as const).map(
    (kind) => [ref(kind), `.neo/definitions/${KIND_INFO[kind].folder}/*.yaml`] as const,
  );
  return Object.fromEntries([[ref('flow'), '.neo/flows/*.yaml'], ...folders, [ref('config'), '.neo/neo.yaml']]);
}
