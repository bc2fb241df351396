/**
 * The flow `neo init` writes for a repository of a detected shape: one agent step whose gate is
 * the project's own test command, run in the sandbox without network against the dependencies
 * lent from the checkout, with the ecosystem's `protect:` preset and the project's test globs.
 * Each choice carries a comment that says what it does and how to change it.
 */
import type { ProjectShape } from './detect-project.js';

export interface ScaffoldOptions {
  /** The schema modeline (first line). */
  modeline: string;
  shape: ProjectShape;
  /** The backend the step runs on, and whether its CLI was found here. */
  backend: { id: string; available: boolean };
  /** Whether bubblewrap works here. */
  sandbox: boolean;
  /** The checkout's installed dependency folders a run's worktree is lent (relative). */
  lent: readonly string[];
}

/** A double-quoted YAML scalar. */
const quoted = (text: string) => JSON.stringify(text);

export function scaffoldFlow(o: ScaffoldOptions): string {
  const { shape } = o;
  const test = shape.test;
  return `${o.modeline}
name: check-and-fix
description: Run the tests; if they fail, let the project persona fix them and check again.
defaults:
${backendLines(o.backend)}  maxPosture: acceptEdits
  maxRounds: 8
${sandboxLines(o.sandbox)}workspace:
${dependencyLines(o)}  dependencies: reuse
steps:
  - id: fix
    persona: project-helper
    brief: ${quoted(`Make \`${test}\` pass without weakening any test.`)}
    # The gate judges these as they were when the step started; an edit to one fails the step.
${protectComment(shape)}    protect: [${shape.protect.map(quoted).join(', ')}]
    # The gate: ${shape.testFound ? `the project's test command (${shape.testFrom})` : `CHECK THIS: ${shape.testFrom}; put your test command here`}.
    # It runs in the step's sandbox, without network, in a fresh copy of the agent's work.
    verify:
      run: ${quoted(test)}
      attempts: 3
`;
}

function backendLines(backend: ScaffoldOptions['backend']): string {
  const note = backend.available
    ? `# The agent CLI that runs the steps (found here); \`neo backends list\` shows every backend and whether it is ready.`
    : `# The agent CLI that runs the steps: not installed here yet (\`neo backends list\` says how, and shows the others).`;
  return `  ${note}\n  backend: ${backend.id}\n`;
}

/** Where `neo init` found bwrap working, the flow asks for it; elsewhere it says why not and how. */
function sandboxLines(works: boolean): string {
  return works
    ? `# Commands, the gate and the agent CLI run in bubblewrap (\`neo doctor\` checks it works here).
sandbox: bwrap
`
    : `# bubblewrap was not available when this file was written (\`neo doctor\` says why): set
# \`sandbox: bwrap\` once it is, to confine the commands, the gate and the agent CLI.
sandbox: none
`;
}

function dependencyLines(o: ScaffoldOptions): string {
  const head = '  # Each run works in a git worktree of your last commit; your checkout is never touched.\n';
  if (o.shape.offline !== undefined) return `${head}  # ${o.shape.manager}: ${o.shape.offline}.\n`;
  const what = o.lent.length > 0 ? o.lent.join(', ') : 'installed dependencies (none yet)';
  const install = o.shape.install === undefined ? '' : ` (\`${o.shape.install}\`)`;
  return `${head}  # reuse: the worktree is lent your checkout's ${what}, read-only, in milliseconds.
  # Install or update them in your checkout${install}, not in the flow. \`none\` lends
  # nothing: install them in a run step before the agent step, with \`network: true\`.
`;
}

function protectComment(shape: ProjectShape): string {
  if (shape.ecosystem === undefined) return '';
  if (shape.unprotectedLock !== undefined)
    return `    # @${shape.ecosystem} without ${shape.unprotectedLock} (not committed here; ${shape.manager} writes it on every build): manifests, test-runner configs (docs/flows.md); then the tests.\n`;
  return `    # @${shape.ecosystem}: manifests, lockfiles, test-runner configs (docs/flows.md); then the tests.\n`;
}
