import type { Command } from 'commander';
import type { ProgramContext } from '../program.js';
import { registerDefinitionCommands } from './definitions.js';
import { registerCatalogCommands } from './catalog.js';

/** Every command group, in help order. Each registers its commands; modules load lazily. */
export const GROUPS: ReadonlyArray<(program: Command, context: ProgramContext) => void> = [
  registerDefinitionCommands,
  registerCatalogCommands,
];
