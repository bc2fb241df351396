/**
 * Personas that drive (seed 004 §2–§3, DESIGN "Personas and the driving loop"): the persona flow
 * statechart, its deciders (rules, llm, human), dispatch with scope constraints and the settle
 * sweep, and the flow engine's driver for steps that name a driver persona.
 */
export { personaMachine } from './machine.js';
export {
  checkAttemptsLeft,
  type PersonaContext,
  type PersonaMachineInput,
  type PersonaOutcome,
  type PersonaEvent,
} from './machine-context.js';
export { personaGraph, renderPersonaGraph, type StateGraph, type GraphEdge } from './graph.js';
export { runPersona, type RunPersonaOptions, type PersonaRunResult } from './run-persona.js';
export { personaActors, type PersonaSessionPort } from './actors.js';
export { dispatchKnobs, type DispatchCaller, type DispatchKnobs } from './dispatch.js';
export { loadPersona, DEFAULT_DRIVER, type LoadedPersona } from './load-persona.js';
export { honestVerdict, fillGuidance, DEFAULT_GATE_GUIDANCE } from './decisions.js';
export type {
  Decider,
  DeciderKind,
  StartPlan,
  StartRejection,
  Answer,
  Judgement,
  Verdict,
  CheckResult,
  SessionInfo,
  SelectInput,
  DecideInput,
  JudgeInput,
  VerifyInput,
  Clarification,
  TurnComplete,
  Terminal,
} from './decisions.js';
export { RulesDecider, verdictFor, type RulesDeciderOptions } from './rules-decider.js';
export { HumanDecider, type HumanDeciderOptions } from './human-decider.js';
export {
  LlmDecider,
  configuredDriverAgent,
  type LlmDeciderOptions,
  type DriverAgent,
  type DriverAgentFactory,
} from './llm-decider.js';
export { codeSessionTool, OpToolState, type DecisionMode, type ToolDecision } from './op-tool.js';
export { firstMessage } from './llm-messages.js';
export { makeDecider, type MakeDeciderOptions } from './make-decider.js';
export { chooseBackend, type BackendChoice, type BackendChoiceInput } from './select-backend.js';
export { shapeBrief } from './brief.js';
export { commandChecker, verifyArgv, CHECK_TAIL_LINES, type Checker } from './check.js';
export {
  pendingQuestionAsker,
  pendingQuestion,
  askedQuestion,
  answerQuestion,
  answerCommand,
  type Question,
  type HumanAnswer,
  type HumanAsker,
  type TerminalAsk,
} from './questions.js';
export { PersonaStepDriver, type PersonaStepDriverOptions } from './step-driver.js';
export type {
  FlowAgentContext,
  FlowAgentTask,
  FlowGateRun,
  StepGate,
  StepProgress,
  StepSettings,
} from './step-contract.js';
export type { PersonaObservation, PersonaObserver } from './observation.js';
