import type { Command } from 'commander';
import type { ProgramContext } from '../program-context.js';
import { databaseUrlOption, engineOption } from './engine-options.js';

/** session (drive one live code session by hand) and sessions (read the store). */
export function registerSessionCommands(program: Command, { lazy, topLevelOnly }: ProgramContext): void {
  // The top-level commands first, in help order: the top-level help builds only these.
  const session = program
    .command('session')
    .description('drive a code session by hand: start, read each turn, answer, guide, stop');
  const sessions = program.command('sessions').description('recorded code sessions, read from the store');
  if (topLevelOnly) return;
  session
    .command('start')
    .description('start a code session (in the session daemon, started on demand) and print its id')
    .requiredOption('--brief <text>', 'the task for the agent')
    .option('--backend <id>', 'the backend (default: config defaults.backend, else claude-code)')
    .option('--script <file>', 'for the script backend: the YAML script to play')
    .option('--cwd <dir>', 'the working tree (default: the current directory)')
    .option('--max-posture <posture>', 'the ceiling for the whole session: plan, default, acceptEdits or full')
    .option('--posture <posture>', 'the posture to start at (default: the ceiling)')
    .option('--max-rounds <n>', 'stop cleanly after this many turns')
    .option('--model <id>', 'a model id or class (cheap, standard, frontier)')
    .option('--effort <level>', 'low, medium, high or max')
    .option('--tag <tag...>', 'task tags for the learning record')
    .option('--allowed-tools <tools...>', 'tools the agent may use (backends that honour it)')
    .option('--mcp-config <file>', 'MCP servers for the session: a JSON file (or JSON) holding {"mcpServers": {...}}')
    .option('--resume <id>', 'continue that conversation (the id `neo session list` shows under RESUME)')
    .option('--json', 'print the start result as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionStart)));
  session
    .command('read')
    .description('wait for the next turn result: turn_complete, clarification, ended, error or max_rounds')
    .argument('<id>', 'session id (or a unique prefix)')
    .option('--diff', 'include the unified diff of the turn')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionRead)));
  session
    .command('answer')
    .description('allow or deny the pending clarification')
    .argument('<id>', 'session id (or a unique prefix)')
    .argument('<clarificationId>', 'the id `session read` printed')
    .option('--allow', 'let the tool call run')
    .option('--deny', 'refuse it')
    .option('--reason <text>', 'why (a deny reason is carried into the next turn)')
    .option('--note <text>', 'a note for the record')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionAnswer)));
  session
    .command('guide')
    .description('guidance for the next turn')
    .argument('<id>', 'session id (or a unique prefix)')
    .argument('<text>', 'the guidance')
    .option('--model <id>', 'switch model for the next turn (per-turn backends only)')
    .option('--effort <level>', 'switch effort for the next turn (per-turn backends only)')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionGuide)));
  session
    .command('posture')
    .description('change the posture within the ceiling fixed at start')
    .argument('<id>', 'session id (or a unique prefix)')
    .argument('<posture>', 'plan, default, acceptEdits or full')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionPosture)));
  session
    .command('interrupt')
    .description('abort the current turn; the session stays open')
    .argument('<id>', 'session id (or a unique prefix)')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionInterrupt)));
  session
    .command('stop')
    .description('stop the session (idempotent), with an optional verdict')
    .argument('<id>', 'session id (or a unique prefix)')
    .option('--outcome <verdict>', 'success, partial, failed or aborted')
    .option('--note <text>', 'a note for the record')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionStop)));
  session
    .command('undo')
    .description(
      "revert the agent's last turn of file writes byte for byte (neo backend; refused if a file changed since)",
    )
    .argument('<id>', 'session id (or a unique prefix)')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionUndo)));
  session
    .command('reset')
    .description("clear the agent's conversation; the session stays open (neo backend)")
    .argument('<id>', 'session id (or a unique prefix)')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionReset)));
  session
    .command('checklist')
    .description('the checklist the agent keeps with its workflow tool (neo backend)')
    .argument('<id>', 'session id (or a unique prefix)')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionChecklist)));
  session
    .command('list')
    .description('the sessions recorded for this working directory, newest first: continue one with start --resume')
    .option('--cwd <dir>', 'the working directory (default: the current one)')
    .option('--backend <id>', 'only this backend (e.g. neo)')
    .option('--limit <n>', 'at most this many')
    .option('--json', 'print the result as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionList)));
  session
    .command('backends')
    .description('every backend with a live availability probe and routing guidance (the list-backends op)')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionBackends)));
  session
    .command('daemon')
    .description('run the session daemon (started on demand by `session start`)')
    .option('--stop', 'ask the running daemon to stop every session and exit')
    .option('--status', 'print the running daemon status')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionDaemon)));

  sessions
    .command('list')
    .description('every session, newest first')
    .option('--json', 'print the records as JSON')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionsList)));
  sessions
    .command('show')
    .description('one session: its record, and its events')
    .argument('<id>', 'session id (or a unique prefix)')
    .option('--events', 'print its events')
    .option('--after <seq>', 'only events after this seq')
    .option('--json', 'print JSON')
    .addOption(engineOption())
    .addOption(databaseUrlOption())
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionsShow)));
  sessions
    .command('tail')
    .description("print a session's events as they are written, until it is released")
    .argument('<id>', 'session id (or a unique prefix)')
    .option('--after <seq>', 'start after this seq (default: from the beginning)')
    .option('--json', 'print one JSON line per event')
    .action(lazy(() => import('./session-commands.js').then((m) => m.sessionsTail)));
}
