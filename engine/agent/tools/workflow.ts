/**
 * The `workflow` tool (seed 000 internal/workflow): a checklist the model keeps for itself — add
 * items, check them off, list them. The state is the session's (in memory, saved with the
 * transcript); every change is reported so the record, `neo sessions show` and the web session
 * page show the current list.
 */
import type { AgentTool } from '../tool.js';
import { ToolInputError, optionalInt, optionalString } from '../tool.js';

export interface ChecklistItem {
  id: number;
  text: string;
  done: boolean;
}

export class Checklist {
  #items: ChecklistItem[] = [];
  readonly #onChange: (items: ChecklistItem[]) => void;

  constructor(onChange: (items: ChecklistItem[]) => void = () => {}, items: readonly ChecklistItem[] = []) {
    this.#onChange = onChange;
    this.#items = items.map((i) => ({ ...i }));
  }

  get items(): ChecklistItem[] {
    return this.#items.map((i) => ({ ...i }));
  }

  add(texts: readonly string[]): void {
    let next = Math.max(0, ...this.#items.map((i) => i.id)) + 1;
    for (const text of texts) this.#items.push({ id: next++, text, done: false });
    this.#onChange(this.items);
  }

  check(id: number, done: boolean): void {
    const item = this.#items.find((i) => i.id === id);
    if (item === undefined)
      throw new ToolInputError(`no checklist item ${id}; items: ${this.#items.map((i) => i.id).join(', ') || 'none'}`);
    item.done = done;
    this.#onChange(this.items);
  }

  clear(): void {
    this.#items = [];
    this.#onChange(this.items);
  }
}

/** One line per item: `[x] 2. run the tests`. */
export function renderChecklist(items: readonly ChecklistItem[]): string {
  if (items.length === 0) return 'the checklist is empty';
  return items.map((i) => `[${i.done ? 'x' : ' '}] ${i.id}. ${i.text}`).join('\n');
}

export function workflowTool(checklist: Checklist): AgentTool {
  return {
    effect: 'read',
    spec: {
      name: 'workflow',
      description:
        'Your checklist for this task: action "add" adds items (text, or items: [...]), "check" marks item id done (done: false unchecks), "list" shows it. Keep it current on multi-step work.',
      inputSchema: {
        type: 'object',
        properties: {
          action: { type: 'string', enum: ['add', 'check', 'list'] },
          text: { type: 'string', description: 'add: one item.' },
          items: { type: 'array', items: { type: 'string' }, description: 'add: several items.' },
          id: { type: 'integer', description: 'check: the item number.' },
          done: { type: 'boolean', description: 'check: false unchecks (default true).' },
        },
        required: ['action'],
      },
    },
    async run(input) {
      const action = optionalString(input, 'action');
      if (action === 'add') {
        const text = optionalString(input, 'text');
        const items = Array.isArray(input.items) ? input.items : [];
        if (items.some((i) => typeof i !== 'string' || i.trim() === ''))
          throw new ToolInputError('"items" must be non-empty strings');
        const all = [...(text !== undefined && text.trim() !== '' ? [text] : []), ...(items as string[])];
        if (all.length === 0) throw new ToolInputError('add needs "text" or "items"');
        checklist.add(all);
      } else if (action === 'check') {
        const id = optionalInt(input, 'id', 1);
        if (id === undefined) throw new ToolInputError('check needs "id"');
        checklist.check(id, input.done !== false);
      } else if (action !== 'list') {
        throw new ToolInputError('"action" must be add, check or list');
      }
      return { output: renderChecklist(checklist.items), isError: false };
    },
  };
}
