/** What the program and its command groups share (its own file: program.ts imports the groups). */
import type { CommandIO } from './io.js';

/** The outcome of parsing and running one command line. */
export interface ProgramResult {
  exitCode: number;
}

/** A command module: `run` returns the exit code; it never calls process.exit. */
export interface CommandModule<A extends unknown[] = never[]> {
  run(io: CommandIO, ...args: A): Promise<number>;
}

/** Context the group registrations share. */
export interface ProgramContext {
  io: CommandIO;
  result: ProgramResult;
  /**
   * Wraps a lazily imported command module as a commander action: the module is loaded only
   * when its command runs, so start-up stays cheap.
   */
  lazy<A extends unknown[]>(load: () => Promise<CommandModule<A>>): (...args: unknown[]) => Promise<void>;
  /**
   * Only the top-level commands (each with its own arguments and options), not the commands of a
   * group: the program is built for the top-level help, which lists nothing more, and building
   * every group's commands and options was most of that help's own cost.
   */
  topLevelOnly: boolean;
}
