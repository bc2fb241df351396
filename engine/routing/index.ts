/**
 * Model and effort routing (seed 004 §10): the rules that bind a request (a class sentinel
 * resolved through the descriptor's modelClassMap, an effort checked against effortSupport, a
 * per-turn switch), the routingGuidance lines list-backends renders, and the advice a rules
 * decider follows when nothing pins a model or effort. The session layer applies the rules at
 * every start and guide; they live here, once.
 */
export {
  MODEL_CLASSES,
  resolveAgentModel,
  defaultAgentModel,
  assertEffortSupported,
  resolveGuideSwitch,
} from './model.js';
export { routingGuidanceLines } from './guidance.js';
export { routingAdvice, adviceProfile, type RoutingAdvice } from './advise.js';
