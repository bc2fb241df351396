import type { Command } from 'commander';
import type { ProgramContext } from '../program-context.js';

/** `neo memory …`: the repository's memory — the decision store, the code graph and its MCP server. */
export function registerMemoryCommands(program: Command, { lazy, topLevelOnly }: ProgramContext): void {
  const memory = program
    .command('memory')
    .description("the repository's memory: what was tried and what the gate said, the code graph, an MCP server");
  if (topLevelOnly) return;
  memory
    .command('decisions')
    .description('what was tried on this repository and what neo saw of it (gate refusals, accepted steps, rejections)')
    .option('--file <path>', 'only decisions that touched this file (or a file under this folder)')
    .option('--symbol <name>', 'only decisions whose change or brief names this symbol')
    .option('--search <text>', 'only decisions whose text holds every word of this')
    .option('--run <runId>', "only this run's decisions")
    .option('--limit <n>', 'at most this many (default 50)')
    .option('--json', 'print them as JSON')
    .action(lazy(() => import('./memory-commands.js').then((m) => m.memoryDecisions)));
  memory
    .command('mcp')
    .description(
      "serve the repository's memory over MCP on stdio (search_decisions, record_decision, the code graph's tools) for any agent",
    )
    .option(
      '--posture <posture>',
      'the posture of the session it serves: under plan, record_decision is refused',
      'default',
    )
    .option('--repo <dir>', 'the repository (default: the current folder)')
    .action(lazy(() => import('./memory-commands.js').then((m) => m.memoryMcp)));
  memory
    .command('index')
    .description("bring the repository's code graph up to date: only files whose content changed are parsed")
    .argument('[path]', 'only this folder or file')
    .option('--json', 'print the report as JSON')
    .action(lazy(() => import('./memory-commands.js').then((m) => m.memoryIndex)));
  memory
    .command('query')
    .description('ask the code graph: symbol, refs, callers, callees, imports, tests-for or outline')
    .argument('<kind>', 'symbol | refs | callers | callees | imports | tests-for | outline')
    .argument(
      '<name>',
      'a symbol name (Class.method narrows), or a repository-relative file for imports, tests-for, outline',
    )
    .option('--json', 'print the answer as JSON')
    .action(lazy(() => import('./memory-commands.js').then((m) => m.memoryQuery)));
  memory
    .command('map')
    .description('the ranked repository map (personalised PageRank over the code graph), fitted to a token budget')
    .argument('[files...]', 'files the map is personalised by (what you will work on)')
    .option('--symbol <name...>', 'symbols the map is personalised by (the files defining them, and their neighbours)')
    .option('--tokens <n>', 'the budget in tokens (default 1500)')
    .action(lazy(() => import('./memory-commands.js').then((m) => m.memoryMap)));
}
