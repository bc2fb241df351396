import { probeSandbox } from '../../engine/execution/index.js';
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
  writeLine(io.stdout, 'editor: to check every file under .neo/ as you type, add to .vscode/settings.json:');
  writeLine(io.stdout, JSON.stringify({ 'yaml.schemas': editorMapping(repo) }, null, 2));
  return EXIT.ok;
}

/** Relative when the schema sits inside the repo (a local install), absolute otherwise. */

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
