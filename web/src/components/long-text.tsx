import { useState } from 'preact/hooks';
import { Ansi } from './ansi';

/** More than this many characters or lines is collapsed until a person asks for all of it. */
const MAX_CHARS = 2_000;
const MAX_LINES = 30;

/**
 * An agent's message or a tool's output: ANSI colours rendered, and a long one collapsed to its
 * head with "show all" — a 1 MB message would otherwise make the page hundreds of thousands of
 * pixels tall. Shown in full, it is still text, never markup.
 */
export function LongText({ text, pre = false }: { text: string; pre?: boolean }) {
  const [all, setAll] = useState(false);
  const lines = text.split('\n');
  const long = text.length > MAX_CHARS || lines.length > MAX_LINES;
  const shown = all || !long ? text : lines.slice(0, MAX_LINES).join('\n').slice(0, MAX_CHARS);
  const body = <Ansi text={shown} />;
  return (
    <>
      {pre ? <pre>{body}</pre> : <span class="long-text">{body}</span>}
      {long ? (
        <button class="link show-all" data-testid="show-all" onClick={() => setAll(!all)}>
          {all ? 'show less' : `show all (${lines.length} lines, ${size(text.length)})`}
        </button>
      ) : null}
    </>
  );
}

function size(chars: number): string {
  return chars < 1024
    ? `${chars} chars`
    : chars < 1024 * 1024
      ? `${Math.round(chars / 1024)} KB`
      : `${(chars / 1024 / 1024).toFixed(1)} MB`;
}
