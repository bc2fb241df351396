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

/** Every command group, in help order. Each registers its commands; modules load lazily. */
export const GROUPS: ReadonlyArray<(program: Command, context: ProgramContext) => void> = [
  registerFlowCommands,
  registerSessionCommands,
  registerChatCommands,
  registerServeCommands,
  registerDefinitionCommands,
  registerCatalogCommands,
  registerScriptCommands,
  registerModelCommands,
  registerLearnCommands,
  registerMemoryCommands,
  registerScaleCommands,
];
