import type { Command } from 'commander';
import type { ProgramContext } from '../program-context.js';

/** script validate, script from-session, script play. */
export function registerScriptCommands(program: Command, { lazy, topLevelOnly }: ProgramContext): void {
  const script = program
    .command('script')
    .description('scripts for the script backend: check them, play them, make them from recorded sessions');
  if (topLevelOnly) return;
  script
    .command('validate')
    .description('check script files; print every problem at file:line:col')
    .argument('<files...>', 'script files (YAML)')
    .option('--json', 'print diagnostics as JSON')
    .action(lazy(() => import('./script-commands.js').then((m) => m.scriptValidate)));
  script
    .command('from-session')
    .description('turn a recorded code session (its events.jsonl) into a script that replays it')
    .argument('<session>', 'a session id (cs_…, or a unique prefix), or the path of an events.jsonl file')
    .option('-o, --output <file>', 'write the script here instead of printing it')
    .option('--force', 'overwrite the output file')
    .action(lazy(() => import('./script-commands.js').then((m) => m.scriptFromSession)));
  script
    .command('play')
    .description('play a script against a folder, straight on the script backend, and print its events')
    .argument('<file>', 'the script')
    .option('--cwd <dir>', 'the working tree to act on (default: the current directory)')
    .option('--posture <posture>', 'plan, default, acceptEdits or full', 'acceptEdits')
    .option('--brief <text>', 'the prompt of the first turn', 'play the script')
    .option('--guide <text...>', 'guidance sent after each turn, in order')
    .option('--answer <decision>', 'how to answer clarifications: allow or deny', 'deny')
    .option('--json', 'print one JSON event per line')
    .action(lazy(() => import('./script-commands.js').then((m) => m.scriptPlay)));
}
