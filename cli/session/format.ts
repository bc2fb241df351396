/**
 * Human renderings of session results, records and events (the --json forms print them raw).
 * What the agent said is data: each rendering takes its input through the one terminal sanitiser
 * first, so no escape sequence or secret reaches the terminal.
 */
import type { CodeSessionRecord, PersistedSessionEvent, ReadTurnResult, TurnDiff } from '../../engine/session/index.js';
import { terminalSafeDeep } from '../../engine/util/terminal-text.js';
import { painter } from '../io.js';
import { provisionLines } from './provision-lines.js';

type Paint = ReturnType<typeof painter>;

export function renderReadTurn(raw: ReadTurnResult, p: Paint): string[] {
  const result = terminalSafeDeep(raw);
  const lines: string[] = [];
  switch (result.kind) {
    case 'turn_complete':
      lines.push(
        p.green('turn_complete') + (result.costUsd !== undefined ? p.dim(` · $${result.costUsd.toFixed(4)}`) : ''),
      );
      if (result.text !== '') lines.push(...indent(result.text));
      for (const action of result.actions) lines.push(`  ${p.cyan('•')} ${action}`);
      break;
    case 'clarification':
      lines.push(
        `${p.yellow('clarification')} ${p.bold(result.clarificationId)}: ${result.toolName} ${JSON.stringify(result.input)}`,
      );
      lines.push(
        p.dim(`  answer with: neo session answer <id> ${result.clarificationId} --allow | --deny [--reason …]`),
      );
      break;
    case 'ended':
      lines.push(`${result.ok ? p.green('ended') : p.red('ended (not ok)')}`);
      if (result.text !== '') lines.push(...indent(result.text));
      break;
    case 'error':
      lines.push(
        `${p.red(result.stalled ? 'stalled' : 'error')}: ${result.code === undefined ? '' : `${result.code}: `}${result.message}`,
      );
      break;
    case 'max_rounds':
      lines.push(`${p.yellow('max_rounds')} after ${result.rounds} rounds (a clean stop)`);
      if (result.text !== '') lines.push(...indent(result.text));
      break;
  }
  if (result.kind !== 'clarification' && result.turnDiff !== undefined) lines.push(...renderDiff(result.turnDiff, p));
  return lines;
}

export function renderDiff(raw: TurnDiff, p: Paint): string[] {
  const diff = terminalSafeDeep(raw);
  const lines = [p.dim(`diff (${diff.source}): ${diff.summaryLine}`)];
  for (const file of diff.files) {
    const counts =
      file.insertions !== undefined || file.deletions !== undefined
        ? p.dim(` +${file.insertions ?? 0} -${file.deletions ?? 0}`)
        : '';
    const name =
      file.oldPath !== undefined
        ? `${JSON.stringify(file.oldPath)} → ${JSON.stringify(file.path)}`
        : safePath(file.path);
    lines.push(`  ${file.status} ${name}${counts}`);
  }
  if (diff.unifiedDiff !== undefined) lines.push(diff.unifiedDiff.replace(/\n$/, ''));
  return lines;
}

export function renderRecord(raw: CodeSessionRecord, p: Paint): string[] {
  const r = terminalSafeDeep(raw);
  return [
    `${p.bold(r.sessionId)}  ${statusColor(r.status, p)}${r.state !== undefined && r.state !== r.status ? p.dim(` (${r.state})`) : ''}`,
    `  backend   ${r.backendId}${r.model !== undefined ? ` · ${r.model}` : ''}${r.effort !== undefined ? ` @ ${r.effort}` : ''}`,
    `  posture   ${r.posture ?? '?'} (ceiling ${r.maxPosture})`,
    `  rounds    ${r.roundsElapsed}${r.maxRounds !== undefined ? ` of ${r.maxRounds}` : ''}${r.costUsd !== undefined ? ` · $${r.costUsd.toFixed(4)}` : ''}`,
    `  cwd       ${r.cwd}`,
    `  created   ${r.createdAt} · updated ${r.updatedAt}`,
    ...(r.outcome !== undefined ? [`  verdict   ${r.outcome}${r.note !== undefined ? ` — ${r.note}` : ''}`] : []),
    ...(r.taskTags.length > 0 ? [`  tags      ${r.taskTags.join(', ')}`] : []),
    `  runs      ${r.runs.map((run) => `${run.startedAt} by ${run.ownerScopeId}${run.externalSessionId !== undefined ? ` (${run.externalSessionId})` : ''}`).join('; ')}`,
    `  brief     ${firstLine(r.taskBrief)}`,
    ...(r.provision !== undefined ? provisionLines(r.provision, p) : []),
  ];
}

/** One line per event: `seq  time  type  detail`. */
export function renderEvent(raw: PersistedSessionEvent, p: Paint): string {
  const line = terminalSafeDeep(raw);
  const e = line.event as { type: string } & Record<string, unknown>;
  const time = line.at.slice(11, 23);
  return `${p.dim(String(line.seq).padStart(4))} ${p.dim(time)} ${p.cyan(e.type.padEnd(13))} ${eventDetail(e)}`;
}

function eventDetail(e: Record<string, unknown>): string {
  switch (e.type) {
    case 'text':
    case 'reasoning':
      return firstLine(String(e.text));
    case 'tool_use':
      return `${String(e.name)} ${clip(JSON.stringify(e.input))}`;
    case 'tool_result':
      return `${e.isError ? 'error: ' : ''}${firstLine(String(e.output))}`;
    case 'clarify':
      return `${String(e.clarificationId)} ${String(e.toolName)} ${clip(JSON.stringify(e.input))}`;
    case 'error':
      return `${e.transient === true ? '(notice) ' : e.fatal === true ? '(fatal) ' : ''}${typeof e.code === 'string' ? `${e.code}: ` : ''}${firstLine(String(e.message))}`;
    case 'turn_diff':
      return (e.diff as TurnDiff).summaryLine;
    case 'guidance':
      return `(${String(e.source)}) ${firstLine(String(e.text))}`;
    case 'checklist': {
      const items = e.items as Array<{ done: boolean }>;
      return `${items.filter((i) => i.done).length}/${items.length} done`;
    }
    case 'undo':
      return `turn ${String(e.turn)}: restored ${(e.restored as string[]).join(', ')}`;
    case 'clarification': {
      const d = e.decision as { allow: boolean; reason?: string };
      return `${String(e.clarificationId)} ${d.allow ? 'allowed' : 'denied'}${d.reason ? `: ${d.reason}` : ''}`;
    }
    default: {
      const { type: _type, ...rest } = e;
      return Object.keys(rest).length === 0 ? '' : clip(JSON.stringify(rest));
    }
  }
}

function statusColor(status: string, p: Paint): string {
  if (status === 'running' || status === 'idle') return p.green(status);
  if (status === 'failed' || status === 'orphaned') return p.red(status);
  return status;
}

function indent(text: string): string[] {
  return text.split('\n').map((line) => `  ${line}`);
}

export function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return clip(line, 100) + (text.includes('\n') ? ' …' : '');
}

function clip(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function safePath(path: string): string {
  return /[\s"\\\u0000-\u001f]/.test(path) ? JSON.stringify(path) : path;
}
