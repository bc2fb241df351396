/** A session's events folded into what the feed shows: prose, tool-call cards, questions, turns, diffs. */
import type { Diff, FeedEvent } from '../types';

export type FeedItem =
  | { kind: 'text'; seq: number; text: string; reasoning: boolean }
  | {
      kind: 'tool';
      seq: number;
      id: string;
      name: string;
      input: unknown;
      output?: string;
      isError?: boolean;
      /** From the call to its result. */
      durationMs?: number;
    }
  | {
      kind: 'clarify';
      seq: number;
      clarificationId: string;
      toolName: string;
      input: unknown;
      decision?: { allow: boolean; reason?: string };
    }
  | { kind: 'guidance'; seq: number; source: string; text: string }
  | { kind: 'turn'; seq: number; numTurns?: number; costUsd?: number; interrupted?: boolean }
  | { kind: 'diff'; seq: number; round: number; diff: Diff }
  | { kind: 'note'; seq: number; text: string; tone: 'dim' | 'bad' | 'ok' | 'warn' };

/** When each item happened (its first event's time), by seq. */
export function timesOf(events: readonly FeedEvent[]): Map<number, string> {
  return new Map(events.map((e) => [e.seq, e.at]));
}

export function foldFeed(events: readonly FeedEvent[]): FeedItem[] {
  const items: FeedItem[] = [];
  const at = timesOf(events);
  const tools = new Map<string, number>();
  const questions = new Map<string, number>();
  for (const { seq, event: e } of events) {
    const s = (key: string) => (typeof e[key] === 'string' ? (e[key] as string) : '');
    switch (e.type) {
      case 'text':
      case 'reasoning':
        items.push({ kind: 'text', seq, text: s('text'), reasoning: e.type === 'reasoning' });
        break;
      case 'tool_use':
        tools.set(s('id'), items.length);
        items.push({ kind: 'tool', seq, id: s('id'), name: s('name'), input: e.input });
        break;
      case 'tool_result': {
        const index = tools.get(s('id'));
        const item = index === undefined ? undefined : items[index];
        const started = item === undefined ? undefined : at.get(item.seq);
        const ended = at.get(seq);
        if (item?.kind === 'tool')
          items[index!] = {
            ...item,
            output: s('output'),
            isError: e.isError === true,
            ...(started && ended ? { durationMs: Date.parse(ended) - Date.parse(started) } : {}),
          };
        else items.push({ kind: 'note', seq, text: `tool result ${s('id')}: ${s('output')}`, tone: 'dim' });
        break;
      }
      case 'clarify':
        questions.set(s('clarificationId'), items.length);
        items.push({
          kind: 'clarify',
          seq,
          clarificationId: s('clarificationId'),
          toolName: s('toolName'),
          input: e.input,
        });
        break;
      case 'clarification': {
        const index = questions.get(s('clarificationId'));
        const item = index === undefined ? undefined : items[index];
        const decision = e.decision as { allow: boolean; reason?: string };
        if (item?.kind === 'clarify') items[index!] = { ...item, decision };
        break;
      }
      case 'guidance':
        items.push({ kind: 'guidance', seq, source: s('source'), text: s('text') });
        break;
      case 'turn_complete':
        items.push({
          kind: 'turn',
          seq,
          ...(typeof e.numTurns === 'number' ? { numTurns: e.numTurns } : {}),
          ...(typeof e.costUsd === 'number' ? { costUsd: e.costUsd } : {}),
          ...(e.interrupted === true ? { interrupted: true } : {}),
        });
        break;
      case 'turn_diff':
        items.push({ kind: 'diff', seq, round: Number(e.round), diff: e.diff as Diff });
        break;
      default:
        items.push({ kind: 'note', seq, ...describe(e) });
    }
  }
  return items;
}

function describe(e: FeedEvent['event']): { text: string; tone: 'dim' | 'bad' | 'ok' | 'warn' } {
  const s = (key: string) => String(e[key] ?? '');
  switch (e.type) {
    case 'created':
      return {
        text: `session created · ${s('backend')} · posture ${s('posture')} ≤ ${s('maxPosture')} · ${s('maxRounds')} rounds`,
        tone: 'dim',
      };
    case 'adopted':
      return { text: `resumed (adopted) · ${s('backend')} · ${s('roundsElapsed')} rounds so far`, tone: 'ok' };
    case 'started':
      return { text: `agent started${e.model ? ` · ${s('model')}` : ''}`, tone: 'dim' };
    case 'posture':
      return { text: `posture now ${s('mode')}`, tone: 'warn' };
    case 'error':
      return {
        text: `error${e.code ? ` ${s('code')}` : ''}: ${s('message')}`,
        tone: e.transient === true ? 'warn' : 'bad',
      };
    case 'ended':
      return {
        text: `agent ended (${e.ok === false ? 'not ok' : 'ok'})${e.text ? `: ${s('text')}` : ''}`,
        tone: e.ok === false ? 'bad' : 'ok',
      };
    case 'released':
      return {
        text: `released (${s('reason')})${e.outcome ? ` · verdict ${s('outcome')}` : ''}${e.note ? ` · ${s('note')}` : ''}`,
        tone: 'dim',
      };
    case 'stalled':
      return { text: `stalled: no event for ${Math.round(Number(e.idleMs) / 1000)}s`, tone: 'bad' };
    case 'max_rounds':
      return { text: `round limit reached (${s('rounds')})`, tone: 'warn' };
    case 'interrupt':
      return { text: 'interrupted', tone: 'warn' };
    default:
      return { text: e.type, tone: 'dim' };
  }
}
