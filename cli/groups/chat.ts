import type { Command } from 'commander';
import type { ProgramContext } from '../program-context.js';

/** `neo chat`: a terminal chat with neo's own agent (cli/chat/). */
export function registerChatCommands(program: Command, { lazy }: ProgramContext): void {
  program
    .command('chat')
    .description("an interactive session with neo's own agent in the current repository")
    .option('--resume <id>', 'continue a recorded session (its id or a unique prefix)')
    .option('--posture <posture>', 'start at this posture (plan, default, acceptEdits or full), within the ceiling')
    .option('--model <id>', 'a model id or class (cheap, standard, frontier)')
    .option('--backend <id>', "another backend than neo's own agent (one that can be driven live)")
    .option('--max-rounds <n>', 'turns per session before the chat continues in a new one')
    .action(lazy(() => import('../commands/chat.js')));
}
