/**
 * Personas that drive (seed 004 §2–§3, DESIGN "Personas and the driving loop"): the persona flow
 * statechart, its deciders (rules, llm, human), dispatch with scope constraints and the settle
 * sweep, and the flow engine's driver for steps that name a driver persona.
 */
export { personaMachine, checkAttemptsLeft } from './machine.js';
export { personaGraph, renderPersonaGraph } from './graph.js';
export { runPersona } from './run-persona.js';
export { personaActors } from './actors.js';
export { dispatchKnobs } from './dispatch.js';
export { loadPersona, DEFAULT_DRIVER } from './load-persona.js';
export { honestVerdict, fillGuidance, DEFAULT_GATE_GUIDANCE } from './decisions.js';
export { RulesDecider, verdictFor } from './rules-decider.js';
export { HumanDecider } from './human-decider.js';
export { LlmDecider, configuredDriverAgent } from './llm-decider.js';
export { codeSessionTool, OpToolState } from './op-tool.js';
export { firstMessage } from './llm-messages.js';
export { makeDecider } from './make-decider.js';
export { matchClarifyRules } from './clarify-rules.js';
export { DEFAULT_RULES, EDIT_TOOL_NAMES, rulesWithDefaults } from './default-rules.js';
export { chooseBackend } from './select-backend.js';
export { shapeBrief } from './brief.js';
export { splitCommand, startsWithWords, commandFragments } from './command-words.js';
export { globMatch, relativeInside } from './path-glob.js';
export { askCommand, askPaths } from './ask-input.js';
export { commandChecker, verifyArgv, CHECK_TAIL_LINES } from './check.js';
export { pendingQuestionAsker, pendingQuestion, answerQuestion, answerCommand } from './questions.js';
export { foldDiffs } from './fold-diffs.js';
export { PersonaStepDriver } from './step-driver.js';
