/** The `script` backend: replays a YAML script of agent actions against the real working tree. */
export { createScriptTransport, ScriptTransport } from './script-transport.js';
export { checkScriptFile, checkScriptText, planOrThrow, ScriptInvalidError } from './load-script.js';
export { ACTION_KEYS, SCRIPT_EDIT_TOOLS, SCRIPT_RUN_TOOL } from './script-model.js';
export { PROGRESS_FILE } from './progress.js';
export { scriptFromEvents } from './from-events.js';
export { renderScriptYaml } from './script-yaml.js';
