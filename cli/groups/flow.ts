import { Option, type Command } from 'commander';
import { exitCodesHelp } from '../exit-codes.js';
import { databaseUrlOption, engineOption } from './engine-options.js';
import { metricsPortOption } from '../metrics-port.js';
import type { ProgramContext } from '../program-context.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** neo flow run | resume | approve | list | cancel | clean | show | logs | graph | validate. */
export function registerFlowCommands(program: Command, { lazy, topLevelOnly }: ProgramContext): void {
  const flow = program
    .command('flow')
    .description('run flows (plan.yaml): steps of agent work, commands, approvals and sub-flows');
  if (topLevelOnly) return;
  flow
    .command('run')
    .description(
      'run a plan: live step tree on a terminal, plain lines otherwise, NDJSON with --json; exit 0 only on success, else the code of the cause (below)',
    )
    .argument('<plan>', 'the plan file (plan.yaml or *.flow.yaml)')
    .option('--input <key=value>', 'an input (repeatable); converted to its declared type', collect, [])
    .option('--inputs <file>', 'inputs from a YAML or JSON file (--input wins)')
    .option('--json', 'print one JSON object per event (NDJSON)')
    .option('--dry-run', "print each step's effective backend, model, effort, posture, budget and gate; run nothing")
    .option('--watch', 'apply edits of the plan and its personas to steps that have not started')
    .option('--backend <id>', "every agent step's backend (e.g. script)")
    .addOption(metricsPortOption('the run'))
    .option('--yes', 'answer every approval with its first passing decision (for CI); recorded in the run')
    .addOption(
      new Option(
        '--isolation <mode>',
        'where the steps work (default: worktree in a git repo, copy elsewhere)',
      ).choices(['worktree', 'inplace', 'copy']),
    )
    .addOption(engineOption())
    .addOption(databaseUrlOption())
    .option('--detach', 'dbos: enqueue the run and return; do not follow it')
    .option('--run-id <id>', 'dbos: the run id (enqueuing an id again is the same run)')
    .option(
      '--remote <repo>',
      "dbos: a git remote (a bare repository's path or a URL) the run's base and each step's result are pushed to, so any worker that can fetch it runs the run (docs/scale-out.md)",
    )
    .addHelpText('after', exitCodesHelp())
    .action(lazy(() => import('./flow-commands.js').then((m) => m.flowRun)));
  flow
    .command('resume')
    .description('continue an interrupted or failed run with its pinned inputs and definitions')
    .argument('<runId>', 'the run (a unique prefix is enough)')
    .option('--rerun <step>', 'run a finished step (and what depends on it) again (repeatable)', collect, [])
    .option('--rebase-definitions', 'use the current definition files instead of the pinned plan')
    .option('--yes', 'answer every approval with its first passing decision')
    .option('--json', 'print one JSON object per event (NDJSON)')
    .addOption(metricsPortOption('the resumed run'))
    .addOption(engineOption())
    .addOption(databaseUrlOption())
    .option('--detach', 'dbos: put the run back on the queue and return; do not follow it')
    .addHelpText('after', exitCodesHelp())
    .action(lazy(() => import('./flow-commands.js').then((m) => m.flowResume)));
  flow
    .command('approve')
    .description("answer a run's approval from another terminal")
    .argument('<runId>', 'the run')
    .argument('<step>', 'the approval step (step[index] for a foreach item)')
    .requiredOption('--decision <id>', 'the decision (e.g. approve, reject)')
    .option('--note <text>', 'a note recorded with the answer')
    .option('--json', 'print JSON')
    .addOption(engineOption())
    .addOption(databaseUrlOption())
    .action(lazy(() => import('./flow-commands.js').then((m) => m.flowApprove)));
  flow
    .command('list')
    .description('runs, newest first')
    .option('--json', 'print JSON')
    .addOption(engineOption())
    .addOption(databaseUrlOption())
    .action(lazy(() => import('./flow-commands.js').then((m) => m.flowList)));
  flow
    .command('cancel')
    .description('stop a run: local, its driving process is interrupted (resumable); dbos, its workflow is cancelled')
    .argument('<runId>', 'the run (a unique prefix is enough)')
    .option('--json', 'print JSON')
    .addOption(engineOption())
    .addOption(databaseUrlOption())
    .action(lazy(() => import('./flow-commands.js').then((m) => m.flowCancel)));
  flow
    .command('clean')
    .description(
      "remove finished runs' worktrees, neo/<runId> branches and run folders; never a live run, nor work kept nowhere else without --force",
    )
    .argument('[runIds...]', 'only these runs (a unique prefix is enough); every run when none is named')
    .option('--older-than <age>', 'only runs last changed longer ago than this (7d, 12h, 30m)')
    .option('--status <status>', 'only runs in this status: succeeded, failed, interrupted (repeatable)', collect, [])
    .option('--force', 'also remove uncommitted work, commits merged into no branch, and copies')
    .option('--dry-run', 'say what would be removed; remove nothing')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./flow-commands.js').then((m) => m.flowClean)));
  flow
    .command('show')
    .description('one run: its steps, verdicts, evidence, costs and diffs')
    .argument('[runId]', 'the run (a unique prefix is enough); the latest when none is named')
    .option('--diff', "print agent steps' unified diffs")
    .option('--events', 'print the event log')
    .option('--json', 'print JSON')
    .addOption(engineOption())
    .addOption(databaseUrlOption())
    .action(lazy(() => import('./flow-commands.js').then((m) => m.flowShow)));
  flow
    .command('logs')
    .description("a run's decision log: its steps' decisions and its sessions' code_session_* decisions")
    .argument('[runId]', 'the run (a unique prefix is enough); the latest when none is named')
    .option('--level <level>', 'only lines at or above this level (debug, info, warn, error)', 'debug')
    .option('--json', 'print the JSON lines as they are stored')
    .action(lazy(() => import('./flow-commands.js').then((m) => m.flowLogs)));
  flow
    .command('graph')
    .description('draw the step graph')
    .argument('<plan>', 'the plan file')
    .addOption(new Option('--format <format>', 'output format').choices(['mermaid', 'dot']).default('mermaid'))
    .action(lazy(() => import('./flow-commands.js').then((m) => m.flowGraph)));
  flow
    .command('validate')
    .description('check a plan (schema, references, needs, expressions, knobs) without running it')
    .argument('<plan>', 'the plan file')
    .option('--backend <id>', 'check as if run with --backend')
    .option('--json', 'print problems as JSON')
    .action(lazy(() => import('./flow-commands.js').then((m) => m.flowValidate)));
}
