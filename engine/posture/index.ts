/**
 * The one pure posture module: posture and effort order, the gate table and decideAsk, tool-name
 * lists, path containment (given resolved paths), the `.git` rule, command rules and
 * clarification rules. No `node:*`, no I/O: every other area asks it. The impure half — turning
 * paths into real paths — is engine/execution/paths.ts.
 */
export { answerAsk, type AnswerRules } from './answer.js';
export type { AskKind, ToolAsk } from './ask.js';
export { askCommand, askPaths, toolAskFromInput, type AskCommand } from './ask-input.js';
export { readCommandArgv, readCommandLine, operatorsOf, type CommandLine, type CommandToken } from './command-line.js';
export {
  commandMatchesRule,
  commandOfAsk,
  commandRuleProblem,
  commandTouchesRule,
  firstMatchingRule,
} from './command-rule.js';
export {
  isGitPath,
  lexicalPath,
  outsideRoot,
  relativeInside,
  writeProblem,
  type ContainmentProblem,
  type ResolvedPath,
} from './containment.js';
export { curatedMcpAsk, type CuratedMcp, type CuratedMcpServer } from './curated-mcp.js';
export { POSTURE_CEILING_EXCEEDED, underCeiling, type Ceiling, type CeilingVerdict } from './ceiling.js';
export { POSTURE_GATE, decideAsk, type AskContext, type AskDecision, type GateVerdict } from './gate.js';
export {
  DEFAULT_MAX_POSTURE,
  EFFORTS,
  POSTURES,
  effortWithin,
  isPosture,
  minPosture,
  postureRank,
  postureWithin,
  type Effort,
  type Posture,
} from './order.js';
export { globMatch } from './path-glob.js';
export {
  DEFAULT_RULES,
  matchClarifyRules,
  rulesAllowingCommands,
  rulesWithDefaults,
  type ClarifyRule,
  type ClarifyRules,
  type RuleVerdict,
} from './rules.js';
export {
  COMMAND_TOOL_NAMES,
  EDIT_TOOL_NAMES,
  READ_TOOL_NAMES,
  classifyAcpKind,
  classifyToolName,
  isCommandTool,
} from './tool-names.js';
export {
  PROTECT_PRESETS,
  PROTECT_PRESET_NAMES,
  collapseProtect,
  expandProtect,
  isProtectPreset,
  presetGlobs,
} from './protect-presets.js';
