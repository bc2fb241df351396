import { Option, type Command } from 'commander';
import { metricsPortOption } from '../metrics-port.js';
import type { ProgramContext } from '../program-context.js';

/** personas, backends, capabilities. */
export function registerCatalogCommands(program: Command, { lazy, topLevelOnly }: ProgramContext): void {
  // The top-level commands first, in help order: the top-level help builds only these.
  const personas = program.command('personas').alias('persona').description('list and inspect personas');
  const backends = program.command('backends').description('backend descriptors');
  program
    .command('doctor')
    .description('what works on this machine: the sandbox (bwrap) tried for real, and how to fix what does not')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.doctor)));
  const capabilities = program.command('capabilities').description('the capability catalog, detection and approvals');
  if (topLevelOnly) return;
  personas
    .command('list')
    .description('every persona with its layer')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.personasList)));
  personas
    .command('show')
    .description('one persona: its fields, its origin (layer and file), what it overrides')
    .argument('<id>', 'persona id')
    .option('--json', 'print JSON')
    .option('--effective', 'the merged knobs (policy, owner cap) and where each came from')
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.personasShow)));
  personas
    .command('run')
    .description('run one persona outside a flow, with the live display of flows; exit 0 only on a verified success')
    .argument('[id]', 'persona id (default: the code-specialist driver)')
    .requiredOption('--brief <text>', 'what the persona must get done')
    .option('--backend <id>', "pin the backend (replaces the persona's own pin; the owner policy still caps it)")
    .option('--cwd <dir>', 'where the agent works (default: the current directory)')
    .option('--script <file>', "the script backend's script (YAML)")
    .option('--model <id>', "the driven agent's model: an id or a class (cheap, standard, frontier)")
    .addOption(
      new Option('--effort <level>', 'reasoning effort, if the backend accepts it').choices([
        'low',
        'medium',
        'high',
        'max',
      ]),
    )
    .option(
      '--tag <tag>',
      'a task tag recorded with the outcome (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
      [],
    )
    .option('--json', 'print one JSON object per event (NDJSON)')
    .addOption(metricsPortOption('the persona run'))
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.personaRun)));
  personas
    .command('graph')
    .description("draw a persona's driving statechart (listBackends → select → start → read → …)")
    .argument('<id>', 'persona id')
    .addOption(new Option('--format <format>', 'output format').choices(['mermaid', 'dot']).default('mermaid'))
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.personaGraph)));

  backends
    .command('list')
    .description('every backend with its capabilities and a live availability probe')
    .option('--json', 'print JSON')
    .option('--no-probe', 'skip the availability probe')
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.backendsList)));
  backends
    .command('doc')
    .description('the backends reference (docs/backends.md) generated from the packaged descriptors')
    .option('--write', 'write docs/backends.md')
    .option('--check', 'exit 1 when docs/backends.md is stale')
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.backendsDoc)));

  capabilities
    .command('list')
    .description('every catalog entry with its trust tier and source')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.capabilitiesList)));
  capabilities
    .command('detect')
    .description('which capabilities a project calls for, on what evidence, and whether each waits for approval')
    .argument('[path]', 'the project folder (default: here)')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.capabilitiesDetect)));
  capabilities
    .command('show')
    .description('one entry: its pinned identity, rules, what it provides, where its approval stands')
    .argument('<id>', 'capability id')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.capabilitiesShow)));
  capabilities
    .command('approve')
    .description('approve a T2/T3 capability at its current pin (a pin bump asks again)')
    .argument('<id>', 'capability id')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.capabilitiesApprove)));
  capabilities
    .command('revoke')
    .description("remove a capability's approval and decline its open request")
    .argument('<id>', 'capability id')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.capabilitiesRevoke)));
  capabilities
    .command('check-updates')
    .description('newer versions or commits of the pinned sources (reports only; never edits a pin)')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./catalog-commands.js').then((m) => m.capabilitiesCheckUpdates)));
}
