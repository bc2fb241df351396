/**
 * Code sessions (seed 004 §1–§8): the op contract, the lifecycle statechart, posture and scope
 * rules, the registry and its event seam, the durable store and per-turn diff capture.
 */
export { createSessionService } from './service.js';
export { OPS, STOP_OUTCOMES, MODEL_CLASSES } from './contract.js';
export { parseOpInput } from './parse-input.js';
export { SessionRejection, SessionFailure } from './errors.js';
export { mintSessionId, isSessionId } from './ids.js';
export { resolveStart, checkSetPosture, resolveAgentModel, resolveGuideSwitch, assertEffortSupported, assertPostureExpressible, DEFAULT_MAX_ROUNDS } from './posture-rules.js';
export { sessionMachine, stateName, statusOf, isLiveState } from './machine.js';
export { RoundHistoryLog, DIET_LIMITS } from './round-history.js';
export { CodeSessionStore } from './store/session-store.js';
export { TASK_BRIEF_MAX_CHARS, truncateBrief } from './store/record.js';
export { TurnDiffCapture } from './diff/capture.js';
export { MAX_DIFF_BYTES, summaryLine, capUnifiedDiff } from './diff/summary.js';
export { parsePorcelainZ, parseNumstatZ, parseNameStatusZ } from './diff/parse.js';
export { editPathsOf } from './diff/tool-events.js';
export { toReadTurnResult } from './ops/read-turn.js';
export { backendCatalog, sessionDefaults, DEFAULT_IDLE_TIMEOUT_MS } from './ops/start.js';
export { descriptorView } from './ops/list-backends.js';
export { routingGuidanceLines } from './routing-guidance.js';
export { METRICS, MemoryMetrics, guardedMetrics, noopMetrics, metricKey } from './metrics.js';
export { stderrLog, silentLog, formatLogLine } from './log.js';
export { realClock } from './live-session.js';
export { SessionRegistry } from './registry.js';
export { connectDaemon, isDaemonError } from './daemon/client.js';
export { startSessionDaemon, DaemonAlreadyRunning, DEFAULT_DAEMON_IDLE_MS } from './daemon/server.js';
export { runSessionDaemon } from './daemon/main.js';
export { daemonPaths } from './daemon/paths.js';
