/**
 * The metric families of seed 004 §8, declared once: their names, kind, labels and help text.
 * Recording sites use the name constants; the Prometheus sink registers exactly these, so a
 * typo'd or unlabelled record is dropped there instead of inventing a family.
 */

export interface MetricFamily {
  name: string;
  kind: 'counter' | 'histogram';
  labels: readonly string[];
  help: string;
}

/** code_session_*: the op-level family. */
export const SESSION_METRICS = {
  ops: 'code_session_ops_total',
  started: 'code_session_started_total',
  readTurn: 'code_session_read_turn_total',
  answers: 'code_session_clarification_answers_total',
  postureChanges: 'code_session_posture_changes_total',
  released: 'code_session_released_total',
  rounds: 'code_session_rounds',
  durationMs: 'code_session_duration_ms',
  settled: 'code_session_settled_total',
  settleDurationMs: 'code_session_settle_duration_ms',
} as const;

/** code_specialist_*: frozen legacy names of a driver persona's dispatch and settle. */
export const SPECIALIST_METRICS = {
  dispatched: 'code_specialist_dispatched_total',
  settled: 'code_specialist_settled_total',
  durationMs: 'code_specialist_duration_ms',
  rounds: 'code_specialist_rounds',
} as const;

export const METRIC_FAMILIES: readonly MetricFamily[] = [
  {
    name: SESSION_METRICS.ops,
    kind: 'counter',
    labels: ['op', 'outcome'],
    help: 'Code-session ops executed, by op and outcome (ok, rejected, error).',
  },
  { name: SESSION_METRICS.started, kind: 'counter', labels: ['backend'], help: 'Code sessions started, by backend.' },
  { name: SESSION_METRICS.readTurn, kind: 'counter', labels: ['kind'], help: 'read-turn results, by kind.' },
  { name: SESSION_METRICS.answers, kind: 'counter', labels: ['allow'], help: 'Clarifications answered, by decision.' },
  {
    name: SESSION_METRICS.postureChanges,
    kind: 'counter',
    labels: ['outcome'],
    help: 'set-posture requests, by outcome (ok, rejected).',
  },
  {
    name: SESSION_METRICS.released,
    kind: 'counter',
    labels: ['reason'],
    help: 'Code sessions released, by reason (explicit, sweep, lifetime).',
  },
  {
    name: SESSION_METRICS.rounds,
    kind: 'histogram',
    labels: [],
    help: 'Rounds a code session ran, observed at release.',
  },
  {
    name: SESSION_METRICS.durationMs,
    kind: 'histogram',
    labels: [],
    help: 'Code-session lifetime in milliseconds, observed at release.',
  },
  {
    name: SESSION_METRICS.settled,
    kind: 'counter',
    labels: ['backend', 'outcome'],
    help: 'Sessions a driver persona settled, by backend and learning outcome.',
  },
  {
    name: SESSION_METRICS.settleDurationMs,
    kind: 'histogram',
    labels: ['backend'],
    help: "A driver persona's dispatch-to-settle time in milliseconds, by backend.",
  },
  {
    name: SPECIALIST_METRICS.dispatched,
    kind: 'counter',
    labels: ['backend'],
    help: 'Driver personas dispatched, by pinned backend (or "auto").',
  },
  {
    name: SPECIALIST_METRICS.settled,
    kind: 'counter',
    labels: ['state'],
    help: 'Driver personas settled, by verdict.',
  },
  {
    name: SPECIALIST_METRICS.durationMs,
    kind: 'histogram',
    labels: [],
    help: "A driver persona's dispatch duration in milliseconds.",
  },
  { name: SPECIALIST_METRICS.rounds, kind: 'histogram', labels: [], help: 'Rounds a driver persona drove.' },
];

/** Whether `labels` are exactly the labels a family declares (so no record invents a series). */
export function fitsFamily(labels: Readonly<Record<string, string>>, declared: readonly string[]): boolean {
  const keys = Object.keys(labels);
  return keys.length === declared.length && keys.every((k) => declared.includes(k) && typeof labels[k] === 'string');
}
