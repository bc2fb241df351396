/**
 * What the distiller asks the model and how it reads the answer. The answer is untrusted text:
 * it must be one JSON object of the documented shape, and each proposed lesson is kept only if it
 * fits (a known backend, a short text, one scope, no advice about postures or escalation);
 * everything else is dropped with a reason the pass logs. Pure.
 */
import type { HarnessOutcomeRecord } from './outcome.js';
import { MAX_LESSON_CHARS, scopeLabel, type Lesson, type LessonCandidate, type LessonScope } from './lesson.js';

/** At most this many outcomes go into one prompt (the newest). */
export const MAX_PROMPT_OUTCOMES = 200;

export const DISTILL_SYSTEM = [
  'You distil short lessons for the drivers of coding agents from the outcome records of past sessions.',
  'A lesson says which backend or model suits which kind of task, what commonly makes sessions fail, or how to brief an agent so it succeeds.',
  'Rules:',
  '- Answer with ONE JSON object and nothing else: {"lessons":[{"text":"...","scope":{"backend":"<backend id>"}}]}.',
  '- scope is exactly one of {"backend":"<id>"}, {"backend":"<id>","model":"<model id>"} or {"taskTag":"<tag>"}; use only backend ids from the list given.',
  `- text is one plain sentence of at most ${MAX_LESSON_CHARS} characters, grounded in the records.`,
  '- To confirm an existing lesson, repeat it with "reinforces":"<its id>".',
  '- Never advise about postures, permission levels, escalation, approvals, sandboxes, or skipping tests, checks or verification. Such lessons are discarded.',
  '- Propose nothing ({"lessons":[]}) when the records teach nothing new.',
].join('\n');

/** The user message: the backends, the lessons so far, the new outcomes. */
export function distillMessage(
  outcomes: readonly HarnessOutcomeRecord[],
  lessons: readonly Lesson[],
  backends: readonly string[],
): string {
  const recent = outcomes.slice(-MAX_PROMPT_OUTCOMES);
  const lines = [
    `Backends: ${backends.join(', ')}`,
    '',
    'Existing lessons:',
    ...(lessons.length === 0 ? ['(none)'] : lessons.map((l) => `- ${l.id} [${scopeLabel(l.scope)}] ${l.text}`)),
    '',
    `Outcome records (${recent.length}):`,
    ...recent.map(outcomeLine),
  ];
  return lines.join('\n');
}

function outcomeLine(r: HarnessOutcomeRecord): string {
  const parts = [
    `backend=${r.backendId}`,
    ...(r.model === undefined ? [] : [`model=${r.model}`]),
    ...(r.effort === undefined ? [] : [`effort=${r.effort}`]),
    ...(r.taskTags.length === 0 ? [] : [`tags=${r.taskTags.join(',')}`]),
    `outcome=${r.outcome}`,
    `rounds=${r.rounds}`,
    `minutes=${(r.durationMs / 60_000).toFixed(1)}`,
    `interventions=${r.interventions.total}`,
    ...(r.failureReason === undefined ? [] : [`reason=${JSON.stringify(r.failureReason.slice(0, 200))}`]),
  ];
  return `- ${parts.join(' ')}`;
}

/** Words that make a lesson posture or escalation advice. */
const FORBIDDEN =
  /\b(postures?|escalat\w*|full access|full mode|bypass\w*|dangerous\w*|yolo|permissions?|approvals?|sandbox\w*|ceilings?|acceptedits|skip\w*\s+(the\s+)?(tests?|checks?|verification|verify|gates?)|disable\w*\s+(the\s+)?(tests?|checks?|verification|gates?)|no-verify)\b/i;

export interface ParsedAnswer {
  candidates: Array<LessonCandidate & { reinforces?: string }>;
  dropped: Array<{ reason: string; item?: unknown }>;
}

/** The valid candidates of an answer, and what was dropped and why. */
export function parseDistillAnswer(answer: string, backends: readonly string[]): ParsedAnswer {
  const dropped: ParsedAnswer['dropped'] = [];
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  let value: unknown;
  try {
    value = start >= 0 && end > start ? JSON.parse(answer.slice(start, end + 1)) : undefined;
  } catch {
    value = undefined;
  }
  const list = (value as { lessons?: unknown } | undefined)?.lessons;
  if (!Array.isArray(list)) {
    dropped.push({ reason: 'the answer is not a JSON object with a lessons array', item: answer.slice(0, 200) });
    return { candidates: [], dropped };
  }
  const candidates: ParsedAnswer['candidates'] = [];
  for (const item of list) {
    const checked = checkItem(item, backends);
    if (typeof checked === 'string') dropped.push({ reason: checked, item });
    else candidates.push(checked);
  }
  return { candidates, dropped };
}

function checkItem(item: unknown, backends: readonly string[]): string | (LessonCandidate & { reinforces?: string }) {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return 'not an object';
  const o = item as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => !['text', 'scope', 'reinforces'].includes(k));
  if (extra.length > 0) return `unknown field ${extra[0]}`;
  if (typeof o.text !== 'string' || o.text.trim() === '') return 'no text';
  const text = o.text.replace(/\s+/g, ' ').trim();
  if (text.length > MAX_LESSON_CHARS) return `longer than ${MAX_LESSON_CHARS} characters`;
  if (FORBIDDEN.test(text)) return 'posture or escalation advice';
  if (o.reinforces !== undefined && typeof o.reinforces !== 'string') return 'reinforces is not a lesson id';
  const scope = checkScope(o.scope, backends);
  if (typeof scope === 'string') return scope;
  return { text, scope, ...(typeof o.reinforces === 'string' ? { reinforces: o.reinforces } : {}) };
}

function checkScope(value: unknown, backends: readonly string[]): string | LessonScope {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'no scope';
  const s = value as Record<string, unknown>;
  const keys = Object.keys(s).sort().join(',');
  if (keys === 'taskTag') {
    if (typeof s.taskTag !== 'string' || !/^[\w.-]{1,40}$/.test(s.taskTag)) return 'a task tag must be one short word';
    return { taskTag: s.taskTag };
  }
  if (keys !== 'backend' && keys !== 'backend,model') return `scope {${keys}} is not backend, backend+model or taskTag`;
  if (typeof s.backend !== 'string' || !backends.includes(s.backend)) return `unknown backend ${String(s.backend)}`;
  if (s.model === undefined) return { backendId: s.backend };
  if (typeof s.model !== 'string' || !/^[\w.:/@-]{1,100}$/.test(s.model)) return 'a model must be one model id';
  return { backendId: s.backend, model: s.model };
}
