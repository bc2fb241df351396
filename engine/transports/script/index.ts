/** The `script` backend: replays a YAML script of agent actions against the real working tree. */
export { createScriptTransport, ScriptTransport } from './script-transport.js';
export { checkScriptFile, checkScriptText, planOrThrow, ScriptInvalidError, type ScriptCheck } from './load-script.js';
export {
  ACTION_KEYS,
  SCRIPT_EDIT_TOOLS,
  SCRIPT_RUN_TOOL,
  type PlayTurn,
  type ScriptPlan,
  type Step,
} from './script-model.js';
export { PROGRESS_FILE, type ScriptProgress } from './progress.js';
export { scriptFromEvents, type FromEventsResult } from './from-events.js';
export { renderScriptYaml } from './script-yaml.js';
export type { Script, Action, Turn } from '../../generated/script.js';
