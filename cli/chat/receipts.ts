/**
 * What the chat prints for the session's events: the agent's text as it arrives and one compact
 * receipt line per tool call with its outcome. Everything the agent wrote is data: it passes the
 * one terminal sanitiser (no escape sequence, no secret) before it is printed.
 */
import type { ToolAsk } from '../../engine/posture/index.js';
import type { ReadTurnResult, SessionEventPayload } from '../../engine/session/index.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import type { painter } from '../io.js';
import type { ChatStart } from './session-link.js';

type Paint = ReturnType<typeof painter>;

/** Keys whose value says best what a tool call is about, in order of preference. */
const SUMMARY_KEYS = ['command', 'path', 'file_path', 'pattern', 'url', 'query', 'shell_id', 'name'];

/** Turns session events into printable lines; remembers each tool call until its result. */
export class ReceiptPrinter {
  readonly #calls = new Map<string, { name: string; input: unknown }>();
  readonly #p: Paint;

  constructor(p: Paint) {
    this.#p = p;
  }

  /** The lines one event prints (none for bookkeeping events). */
  lines(event: SessionEventPayload): string[] {
    const p = this.#p;
    switch (event.type) {
      case 'text':
        return event.text.trim() === '' ? [] : terminalSafe(event.text.replace(/\n+$/, '')).split('\n');
      case 'tool_use':
        this.#calls.set(event.id, { name: event.name, input: event.input });
        return [];
      case 'tool_result': {
        const call = this.#calls.get(event.id);
        this.#calls.delete(event.id);
        const head = call === undefined ? 'tool' : `${call.name}${argSummary(call.input)}`;
        const outcome = firstLine(event.output);
        return event.isError
          ? [`${p.red('✗')} ${terminalSafe(head)} ${p.dim('—')} ${p.red(terminalSafe(outcome || 'failed'))}`]
          : [`${p.green('✓')} ${terminalSafe(head)}${outcome === '' ? '' : ` ${p.dim(`— ${terminalSafe(outcome)}`)}`}`];
      }
      case 'error':
        // Only notices: an error that ends the turn arrives once, as the turn's result.
        if (event.transient !== true) return [];
        return [p.yellow(terminalSafe(`notice: ${event.code === undefined ? '' : `${event.code}: `}${event.message}`))];
      default:
        return [];
    }
  }
}

/** The chat's first lines. */
export function bannerLines(start: ChatStart, resumedFrom: string | undefined, p: Paint): string[] {
  return [
    p.bold(`neo chat · ${start.backend ?? 'neo'} · ${start.cwd}`),
    ...(resumedFrom === undefined ? [] : [p.dim(`continuing session ${resumedFrom}`)]),
    p.dim('/help for commands · Ctrl-C interrupts a turn · Ctrl-C at the prompt exits'),
  ];
}

/** A failed op as the chat shows it: `CODE: message` and the hint. */
export function errorLines(error: unknown, p: Paint, lead?: string): string[] {
  const e = error as { code?: unknown; message?: unknown; hint?: unknown };
  const code = typeof e.code === 'string' ? `${e.code}: ` : '';
  const text = `${lead === undefined ? '' : `${lead}: `}${code}${String(e.message ?? error)}`;
  return [p.red(terminalSafe(text)), ...(typeof e.hint === 'string' ? [p.dim(`  hint: ${terminalSafe(e.hint)}`)] : [])];
}

/** The question for an ask, on one line, then the choices. */
export function askLines(
  result: Extract<ReadTurnResult, { kind: 'clarification' }>,
  always: string | undefined,
  p: Paint,
): string[] {
  const what = describeAsk(result.ask, result.toolName, result.input);
  return [
    `${p.yellow('?')} ${p.bold(terminalSafe(result.toolName))} wants to ${terminalSafe(what)}`,
    p.dim(
      `  y: allow once · n: deny (n: why) · ${always === undefined ? 'always: not within the ceiling' : `a: always (posture ${always})`}`,
    ),
  ];
}

/** The closing line of a turn: its cost and what it changed. */
export function turnFooter(result: ReadTurnResult, p: Paint): string[] {
  if (result.kind === 'clarification') return [];
  const parts: string[] = [];
  if (result.kind === 'turn_complete' && result.costUsd !== undefined) parts.push(`$${result.costUsd.toFixed(4)}`);
  if (result.turnDiff !== undefined && result.turnDiff.files.length > 0)
    parts.push(terminalSafe(result.turnDiff.summaryLine));
  return parts.length === 0 ? [] : [p.dim(`  (${parts.join(' · ')})`)];
}

function describeAsk(ask: ToolAsk | undefined, toolName: string, input: unknown): string {
  if (ask?.command !== undefined) return `run \`${clip(ask.command, 100)}\``;
  if (ask !== undefined && ask.paths.length > 0) {
    const verb = ask.kind === 'edit' ? 'write' : ask.kind === 'read' ? 'read' : 'use';
    return `${verb} ${ask.paths.map((path) => clip(path, 80)).join(', ')}`;
  }
  return `call ${toolName}${argSummary(input)}`;
}

function argSummary(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const record = input as Record<string, unknown>;
  const key = SUMMARY_KEYS.find((k) => typeof record[k] === 'string');
  if (key !== undefined) return ` ${clip(firstLine(record[key] as string), 80)}`;
  const json = JSON.stringify(input);
  return json === '{}' ? '' : ` ${clip(json, 80)}`;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return clip(line, 80) + (text.trim().includes('\n') ? ' …' : '');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
