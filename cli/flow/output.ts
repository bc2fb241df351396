import { formatDuration, type FlowObservation, type RunObserver } from '../../engine/flow/index.js';
import { painter, useColor, writeJsonLine, writeLine, type CommandIO } from '../io.js';
import { continued, oneLine, terminalSafeDeep } from '../../engine/util/terminal-text.js';
import { evidenceOf, FlowView, ICONS, liveLine } from './view.js';

/** How a run reports while it goes. */
export interface FlowOutput {
  observer: RunObserver;
  view: FlowView;
  /** Stops live rendering (before a prompt or the summary). */
  pause(): void;
  resume(): void;
  close(): void;
}

/** NDJSON with --json, a live tree on a terminal, plain lines otherwise. */
export function flowOutput(io: CommandIO, options: { json?: boolean }): FlowOutput {
  const view = new FlowView();
  if (options.json) {
    return {
      view,
      observer: (o) => {
        view.apply(o);
        writeJsonLine(io.stdout, jsonOf(o));
      },
      pause() {},
      resume() {},
      close() {},
    };
  }
  if (io.stdout.isTTY === true && io.env.TERM !== 'dumb' && io.env.NEO_PLAIN === undefined) return liveOutput(io, view);
  return plainOutput(io, view);
}

function jsonOf(o: FlowObservation): unknown {
  if (o.type === 'run')
    return {
      type: 'run',
      runId: o.runId,
      depth: o.depth,
      flow: o.plan.name,
      resumed: o.resumed,
      workspace: o.record.workspace ?? null,
      steps: o.plan.steps.map((s) => ({ id: s.id, kind: s.kind, needs: s.needs })),
    };
  return o;
}

/** One line per event, for logs and pipes; what a step or agent said passes the terminal sanitiser first. */
function plainOutput(io: CommandIO, view: FlowView): FlowOutput {
  const p = painter(useColor(io.stdout, io.env));
  const say = (depth: number, text: string) => writeLine(io.stdout, `${'  '.repeat(depth)}${continued(text)}`);
  return {
    view,
    observer: (raw) => {
      const o = terminalSafeDeep(raw);
      view.apply(o);
      if (o.type === 'run') {
        say(
          o.depth,
          `${o.resumed ? 'resumed' : 'run'} ${p.bold(o.runId)} · flow ${o.plan.name} · ${o.plan.steps.length} step${o.plan.steps.length === 1 ? '' : 's'}${o.record.workspace ? ` · workspace ${o.record.workspace.path}` : ''}`,
        );
      } else if (o.type === 'notice') {
        say(o.depth, o.level === 'warning' ? p.yellow(`warning: ${o.message}`) : `note: ${o.message}`);
      } else if (o.type === 'progress') {
        if (o.progress.note?.startsWith('waiting for approval'))
          say(o.depth, `step ${o.progress.step} ${o.progress.note}`);
        if (o.progress.notice !== undefined) say(o.depth, p.yellow(`step ${o.progress.step}: ${o.progress.notice}`));
      } else {
        const line = plainEvent(o, view);
        if (line !== undefined) say(o.depth, line);
      }
    },
    pause() {},
    resume() {},
    close() {},
  };
}

function plainEvent(o: Extract<FlowObservation, { type: 'event' }>, view: FlowView): string | undefined {
  const e = o.event;
  const item = 'item' in e && e.item !== undefined ? `[${e.item}]` : '';
  switch (e.type) {
    case 'step.started':
      return `step ${e.step}${item} started${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}${e.iteration > 1 ? ` (iteration ${e.iteration})` : ''}`;
    case 'step.completed': {
      const line = view.runs.get(o.runId)?.steps.get(e.step);
      const evidence =
        item === '' && line !== undefined ? evidenceOf(line) : e.verdict !== undefined ? [e.verdict] : [];
      const error = e.error === undefined ? '' : ` · ${e.error.code}: ${e.error.message}`;
      return `step ${e.step}${item} ${e.status}${evidence.length > 0 ? ` · ${evidence.join(' · ')}` : ''}${error}`;
    }
    case 'step.skipped':
      return `step ${e.step} skipped (${e.reason})`;
    case 'step.retrying':
      return `step ${e.step}${item} will retry (attempt ${e.attempt} in ${formatDuration(e.delayMs)}): ${e.error.message}`;
    case 'step.iterated':
      return `step ${e.step}${item} loops (iteration ${e.iteration})`;
    case 'step.expanded':
      return `step ${e.step} fans out over ${e.items.length} item${e.items.length === 1 ? '' : 's'}`;
    case 'run.stopping':
      return `run stopping: ${e.error.code}: ${e.error.message}`;
    case 'plan.updated':
      return `plan updated: ${[...e.added.map((s) => `+${s}`), ...e.removed.map((s) => `-${s}`), ...e.changed.map((s) => `~${s}`)].join(' ')}`;
    default:
      return undefined;
  }
}

/** A step tree redrawn in place (at most ten times a second). */
function liveOutput(io: CommandIO, view: FlowView): FlowOutput {
  const p = painter(useColor(io.stdout, io.env));
  let drawn = 0;
  let paused = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const notices: string[] = [];
  const erase = () => {
    if (drawn > 0) io.stdout.write(`\u001b[${drawn}A\u001b[0J`);
    drawn = 0;
  };
  const draw = () => {
    timer = undefined;
    if (paused) return;
    const now = Date.now();
    const lines: string[] = [];
    for (const id of view.order) {
      const run = view.runs.get(id)!;
      const indent = '  '.repeat(run.depth);
      lines.push(`${indent}${p.bold(run.flow)} ${p.dim(run.runId)}`);
      for (const line of run.steps.values()) {
        const icon = ICONS[line.status] ?? '?';
        const colored =
          line.status === 'succeeded'
            ? p.green(icon)
            : line.status === 'failed' || line.status === 'cancelled'
              ? p.red(icon)
              : line.status === 'waiting'
                ? p.yellow(icon)
                : line.status === 'running'
                  ? p.cyan(icon)
                  : p.dim(icon);
        const columns = (io.stdout as { columns?: number }).columns;
        lines.push(
          `${indent}  ${colored} ${p.bold(line.id)}  ${truncate(oneLine(liveLine(line, now)), columns !== undefined && columns > 40 ? columns : 120, indent.length + line.id.length + 6)}`,
        );
      }
    }
    erase();
    for (const notice of notices.splice(0)) writeLine(io.stdout, continued(notice));
    io.stdout.write(`${lines.join('\n')}\n`);
    drawn = lines.length;
  };
  const schedule = () => {
    timer ??= setTimeout(draw, 100);
  };
  const ticker = setInterval(schedule, 1000);
  ticker.unref();
  return {
    view,
    observer: (raw) => {
      const o = terminalSafeDeep(raw);
      view.apply(o);
      if (o.type === 'notice')
        notices.push(o.level === 'warning' ? p.yellow(`warning: ${o.message}`) : `note: ${o.message}`);
      schedule();
    },
    pause() {
      paused = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      erase();
    },
    resume() {
      paused = false;
      schedule();
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(ticker);
      if (timer) clearTimeout(timer);
      timer = undefined;
      draw();
    },
  };
}

function truncate(text: string, columns: number, used: number): string {
  const room = Math.max(20, columns - used);
  return text.length <= room ? text : `${text.slice(0, room - 1)}…`;
}
