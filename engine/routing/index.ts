/**
 * Model and effort routing (seed 004 §10). The rules that bind a request — a class sentinel
 * resolved through the descriptor's modelClassMap, an effort checked against effortSupport, the
 * routingGuidance lines list-backends renders — live in the session layer, where every start and
 * guide passes; they are re-exported here so there is one home to read. This folder adds the
 * advice a rules decider follows when nothing pins a model or effort.
 */
export {
  resolveAgentModel,
  assertEffortSupported,
  resolveGuideSwitch,
  routingGuidanceLines,
  MODEL_CLASSES,
} from '../session/index.js';
export { routingAdvice, adviceProfile, type RoutingAdvice } from './advise.js';
