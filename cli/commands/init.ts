import { GitRepo, gitMarker, probeSandbox } from '../../engine/execution/index.js';
import { mkdir, realpath, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
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
import { planDependencies } from '../../engine/flow/index.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeLine, type CommandIO } from '../io.js';
import { detectProject, type ProjectShape } from '../init/detect-project.js';
import { chooseBackend, hiddenTool } from '../init/environment.js';
import { scaffoldFlow } from '../init/scaffold-flow.js';

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

export async function run(io: CommandIO, dir: string | undefined, options: { force?: boolean }): Promise<number> {
  // A folder named is the project, as asked (a package of a monorepo: its flows work on it);
  // none, the repository the command runs in, at its root.
  const repo = dir === undefined ? findRepoRoot(io.cwd, { exclude: neoHome(io.env) }) : await namedFolder(io, dir);
  const { dirty, tracked } = await requireCommittedRepo(repo);
  const flowFile = join(repo, '.neo', 'flows', 'check-and-fix.flow.yaml');
  const files: Array<[string, string]> = [[join(repo, '.neo', 'personas', 'project-helper.md'), PERSONA]];
  for (const file of [files[0]![0], flowFile]) {
    if (!options.force && (await pathExists(file))) {
      throw new UsageError('CLI_INIT_EXISTS', `${relative(io.cwd, file)} already exists`, {
        hint: 'pass --force to overwrite it',
      });
    }
  }
  const home = neoHome(io.env);
  const [shape, sandbox, backend, dependencies] = await Promise.all([
    detectProject(repo, tracked),
    probeSandbox('bwrap', io.env),
    chooseBackend(io),
    planDependencies({ projectDir: repo, home }),
  ]);
  files.push([
    flowFile,
    scaffoldFlow({
      modeline: `# yaml-language-server: $schema=${modelineRef(flowFile, SCHEMA_FILES.flow, repo)}`,
      shape,
      backend,
      sandbox: sandbox.available,
      lent: dependencies.folders,
    }),
  ]);
  for (const [file, text] of files) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    writeLine(io.stdout, `created ${relative(io.cwd, file) || file}`);
  }
  const p = painter(useColor(io.stdout, io.env));
  for (const line of projectLines(shape, dependencies.folders)) writeLine(io.stdout, line);
  for (const line of warnings(shape, backend, dependencies.folders, io.env)) writeLine(io.stdout, p.yellow(line));
  if (dir === undefined && (await realpath(io.cwd)) !== (await realpath(repo)))
    writeLine(
      io.stdout,
      `note: scaffolded at the root of the repository (${repo}), which every flow there works on; \`neo init .\` scaffolds for this folder alone`,
    );
  // `neo validate` reads the layers of the repository it runs in: a package's `.neo/` is named.
  const named = dir === undefined ? '' : relative(io.cwd, repo);
  writeLine(
    io.stdout,
    `next: \`neo validate${named === '' ? '' : ` ${named}`}\`, then \`neo flow run ${relative(io.cwd, flowFile)}\``,
  );
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

/** What init found, in the user's words: the ecosystem, the gate, what a run's worktree is lent. */
function projectLines(shape: ProjectShape, lent: readonly string[]): string[] {
  const found =
    shape.ecosystem === undefined
      ? 'project: no ecosystem recognised'
      : `project: ${shape.ecosystem} (${shape.manager})`;
  return [
    `${found}; gate: \`${shape.test}\` (${shape.testFrom}); protect: ${shape.protect.join(' ')}`,
    ...(lent.length > 0
      ? [`dependencies: each run's worktree is lent your checkout's ${lent.join(', ')}, read-only`]
      : []),
  ];
}

/** What stands between this scaffold and a first run that works, each with what to do. */
function warnings(
  shape: ProjectShape,
  backend: { id: string; available: boolean; hint?: string },
  lent: readonly string[],
  env: NodeJS.ProcessEnv,
): string[] {
  const out: string[] = [];
  if (!shape.testFound) out.push(`warning: ${shape.testFrom}: set the gate (verify.run) to your test command`);
  if (lent.length === 0 && shape.installedHere !== undefined)
    out.push(
      `warning: your ${shape.installedHere} is not ignored by git, so a run's worktree is not lent it: add \`${shape.installedHere}/\` to .gitignore and commit that`,
    );
  // A Python gate may pass on the machine's own python3 (a module at the top, the system's
  // pytest); a Node one with dependencies declared cannot without node_modules.
  else if (shape.install !== undefined && lent.length === 0 && shape.ecosystem === 'python')
    out.push(
      `warning: no virtualenv in your checkout to lend a run's worktree: the gate runs this machine's \`python3\`; if the tests need the project installed or packages it lacks, install them first (\`${shape.install}\`)`,
    );
  else if (shape.install !== undefined && lent.length === 0)
    out.push(
      `warning: nothing is installed in your checkout to lend a run's worktree: install first (\`${shape.install}\`), or the gate fails`,
    );
  if (shape.offline !== undefined) out.push(`note: ${shape.offline}`);
  if (shape.unprotectedLock !== undefined)
    out.push(
      `note: ${shape.unprotectedLock} is not committed here, and ${shape.manager} writes one on every build: protect is the @${shape.ecosystem} preset without it, or each run would fail as a protected edit`,
    );
  if (shape.testHooks !== undefined)
    out.push(
      `note: \`npm test\` runs ${shape.testHooks.join(' and ')} in the gate too, offline: if one needs the network or a tool not installed, make the gate \`npm test --ignore-scripts\` (the test script alone)`,
    );
  // Go's and Rust's toolchains are lent to the sandbox with their caches (workspace/toolchains.ts).
  const tool = shape.offline === undefined ? hiddenTool(shape.test, env) : undefined;
  if (tool !== undefined)
    out.push(
      `warning: \`${tool.name}\` is ${tool.path}, under your home, which the sandbox hides: the gate will not find it under \`sandbox: bwrap\` (install it outside your home, or use a virtualenv)`,
    );
  if (!backend.available)
    out.push(
      `warning: backend ${backend.id} is not installed here${backend.hint === undefined ? '' : ` (${backend.hint})`}; \`neo backends list\` shows the others`,
    );
  return out;
}

/** The folder `neo init <dir>` was given, which must exist: a typo would otherwise scaffold a project nobody has. */
async function namedFolder(io: CommandIO, dir: string): Promise<string> {
  const folder = resolve(io.cwd, dir);
  if (!(await stat(folder).catch(() => undefined))?.isDirectory())
    throw new UsageError('CLI_INIT_NO_DIR', `${dir} is not a folder`, {
      hint: 'name the project folder to scaffold (a package of a monorepo), or run `neo init` in the repository',
    });
  return folder;
}

/**
 * A flow runs in a git worktree of the project's last commit, so a folder without git or a
 * repository without a commit cannot run one: refused before anything is written, with the
 * commands that fix it. Returns whether the repository has uncommitted changes, and its tracked files.
 */
async function requireCommittedRepo(repo: string): Promise<{ dirty: boolean; tracked: string[] }> {
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
  if (git === undefined) return { dirty: false, tracked: [] };
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
  // The project's own files, relative to it: a package of a monorepo is judged by what it holds.
  const rel = relative(await realpath(git.location.top), await realpath(repo))
    .split(sep)
    .join('/');
  const under = rel === '' ? '.' : rel;
  const dirty = (await git.run(['status', '--porcelain', '--', under])).stdout.trim() !== '';
  const tracked = (await git.run(['ls-files', '-z', '--', under])).stdout
    .split('\0')
    .filter((file) => file !== '')
    .map((file) => (rel === '' ? file : file.slice(rel.length + 1)));
  return { dirty, tracked };
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
