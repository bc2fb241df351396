import { registerDefinitionCommands } from './definitions.js';
import { registerCatalogCommands } from './catalog.js';
import { registerFlowCommands } from './flow.js';
import { registerScriptCommands } from './script.js';
import { registerModelCommands } from './model.js';
import { registerSessionCommands } from './session.js';
/** Every command group, in help order. Each registers its commands; modules load lazily. */
export const GROUPS = [
    registerDefinitionCommands,
    registerCatalogCommands,
    registerFlowCommands,
    registerScriptCommands,
    registerModelCommands,
    registerSessionCommands,
];
