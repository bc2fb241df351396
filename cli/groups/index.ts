import type { Command } from 'commander';
import type { ProgramContext } from '../program-context.js';
import { registerDefinitionCommands } from './definitions.js';
import { registerCatalogCommands } from './catalog.js';
import { registerFlowCommands } from './flow.js';
import { registerScriptCommands } from './script.js';
import { registerModelCommands } from './model.js';
import { registerSessionCommands } from './session.js';
import { registerServeCommands } from './serve.js';
import { registerLearnCommands } from './learn.js';
import { registerMemoryCommands } from './memory.js';
import { registerChatCommands } from './chat.js';
import { registerScaleCommands } from './scale.js';

/** A command group: the top-level commands it registers, and its registration. */
export interface CommandGroup {
  /**
   * The top-level command names and aliases it registers (tests/unit/cli/groups.test.ts checks
   * them against `register`): `neo <name> …` registers this group alone, because building every
   * group's commands and options is a measurable share of a short command's start-up.
   */
  commands: readonly string[];
  register: (program: Command, context: ProgramContext) => void;
}

/** Every command group, in help order. Each registers its commands; modules load lazily. */
export const GROUPS: readonly CommandGroup[] = [
  { commands: ['flow'], register: registerFlowCommands },
  { commands: ['session', 'sessions'], register: registerSessionCommands },
  { commands: ['chat'], register: registerChatCommands },
  { commands: ['serve'], register: registerServeCommands },
  { commands: ['validate', 'schema', 'init', 'dev', 'trust'], register: registerDefinitionCommands },
  { commands: ['personas', 'persona', 'backends', 'doctor', 'capabilities'], register: registerCatalogCommands },
  { commands: ['script'], register: registerScriptCommands },
  { commands: ['model'], register: registerModelCommands },
  { commands: ['learn'], register: registerLearnCommands },
  { commands: ['memory'], register: registerMemoryCommands },
  { commands: ['db', 'worker'], register: registerScaleCommands },
];
