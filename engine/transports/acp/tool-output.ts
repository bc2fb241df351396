type Json = Record<string, unknown>;

/**
 * What one ACP tool-call update says the call produced, as text: its text content, its diffs
 * with the old and new text the agent sent (Gemini and droid say what an edit did only this
 * way), else its `rawOutput` (droid's `{text}`). A `terminal` item is not output: it names a
 * terminal of the agent's own that neo cannot read (droid embeds one for a command it runs,
 * and sends nothing else).
 */
export function toolOutput(update: Json): string {
  const content = Array.isArray(update.content) ? (update.content as Json[]) : [];
  const parts = content.map((item) => (item?.type === 'content' ? textOf(item.content) : renderDiff(item)));
  const text = parts.filter((part) => part !== '').join('\n');
  if (text !== '') return text;
  const raw = update.rawOutput;
  if (raw === undefined || raw === null) return '';
  if (typeof raw === 'string') return raw;
  if (typeof (raw as Json).text === 'string') return (raw as Json).text as string;
  return JSON.stringify(raw);
}

/** The diffs in an update's content, rendered: what a completed call that says nothing more did. */
export function diffOutput(update: Json): string {
  const content = Array.isArray(update.content) ? (update.content as Json[]) : [];
  return content
    .map(renderDiff)
    .filter((part) => part !== '')
    .join('\n');
}

/** A text or resource-link content block's text. */
export function textOf(content: unknown): string {
  if (typeof content !== 'object' || content === null) return '';
  const block = content as Json;
  if (block.type === 'text' && typeof block.text === 'string') return block.text;
  if (block.type === 'resource_link' && typeof block.uri === 'string') return block.uri;
  return '';
}

/**
 * An ACP `diff` item as `diff <path>` and the old text's lines marked `-`, the new text's `+`
 * (a file the call created has no old text): exactly what the agent said, readable.
 */
function renderDiff(item: Json | null | undefined): string {
  if (item?.type !== 'diff' || typeof item.path !== 'string') return '';
  const lines = (text: unknown, mark: string) =>
    typeof text === 'string' && text !== ''
      ? text
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => mark + line)
      : [];
  return [`diff ${item.path}`, ...lines(item.oldText, '-'), ...lines(item.newText, '+')].join('\n');
}
