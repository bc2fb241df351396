/**
 * Code sessions (seed 004 §1–§8): the op contract, the lifecycle statechart, posture and scope
 * rules, the registry and its event seam, the durable store and per-turn diff capture.
 */
export {
  createSessionService,
  type SessionService,
  type SessionServiceOptions,
  type ExecuteOptions,
} from './service.js';
export type { DiffBaseline } from './diff/capture.js';
export type {
  CodeSessionInput,
  CodeSessionOpName,
  CodeSessionOpResult,
  CodeSessionOutputs,
  CallerContext,
  ScopeConstraints,
  StartInput,
  StartResult,
  ReadTurnInput,
  ReadTurnResult,
  ReadTurnKind,
  AnswerInput,
  AnswerResult,
  GuideInput,
  GuideResult,
  SetPostureInput,
  SetPostureResult,
  InterruptInput,
  InterruptResult,
  StopInput,
  StopResult,
  StopOutcome,
  ListBackendsInput,
  ListBackendsResult,
  BackendListing,
  BackendDescriptorView,
  TurnDiff,
  TurnDiffFile,
} from './contract.js';
export { OPS, STOP_OUTCOMES } from './contract.js';
export { parseOpInput } from './parse-input.js';
export { TurnUsage, tokensOf, type UsageCharge } from './turn-usage.js';
export { SessionRejection, SessionFailure } from './errors.js';
export { mintSessionId, isSessionId } from './ids.js';
export {
  resolveStart,
  checkSetPosture,
  assertPostureExpressible,
  DEFAULT_MAX_ROUNDS,
  type ResolvedStart,
  type SessionDefaults,
  type BackendCatalog,
} from './posture-rules.js';
export {
  sessionMachine,
  stateName,
  statusOf,
  isLiveState,
  type SessionStateName,
  type SessionStatus,
  type ReleaseReason,
  type SessionMachineInput,
  type SessionSnapshot,
} from './machine.js';
export { RoundHistoryLog, DIET_LIMITS, type RoundHistory, type RoundHistoryEntry } from './round-history.js';
export type { SessionAnnotation, SessionEventPayload, PersistedSessionEvent, SessionLiveEvent } from './events.js';
export { CodeSessionStore, sweepSessionLitter, type StoreOptions } from './store/session-store.js';
export {
  TASK_BRIEF_MAX_CHARS,
  truncateBrief,
  type CodeSessionRecord,
  type CodeSessionRun,
  type RecordPatch,
  isOrphaned,
} from './store/record.js';
export {
  TurnDiffCapture,
  MAX_DIFF_BYTES,
  summaryLine,
  capUnifiedDiff,
  editPathsOf,
  workspacePath,
  type ToolCall,
} from './diff/index.js';
export { toReadTurnResult } from './ops/read-turn.js';
export { backendCatalog, sessionDefaults, DEFAULT_IDLE_TIMEOUT_MS } from './ops/start.js';
export { descriptorView } from './ops/list-backends.js';
export {
  METRICS,
  MemoryMetrics,
  guardedMetrics,
  noopMetrics,
  metricKey,
  type MetricsSink,
  type MetricLabels,
} from './metrics.js';
export { stderrLog, silentLog, formatLogLine, type SessionLog } from './log.js';
export { realClock, type SessionClock } from './clock.js';
export type { Notification } from './notifications.js';
export { SessionRegistry, type ReleasedHook } from './registry.js';
export { connectDaemon, isDaemonError, type DaemonClient, type ConnectOptions } from './daemon/client.js';
export {
  startSessionDaemon,
  DaemonAlreadyRunning,
  DEFAULT_DAEMON_IDLE_MS,
  type RunningDaemon,
  type DaemonOptions,
} from './daemon/server.js';
export { runSessionDaemon } from './daemon/main.js';
export { daemonPaths, type DaemonPaths } from './daemon/paths.js';
export { encodeError, decodeError, type DaemonStatus, type WireError } from './daemon/protocol.js';
