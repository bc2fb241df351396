/**
 * Terminal text as a person should see it: SGR colour and weight codes (`ESC[31m`, `ESC[1;32m`,
 * `ESC[38;5;9m`) become spans with classes — never inline styles, which the page's CSP forbids —
 * and every other escape sequence (cursor moves, titles, OSC links) is dropped. Nothing is ever
 * shown as raw escape bytes, and nothing an agent wrote becomes markup.
 */

interface Style {
  fg?: number;
  bg?: number;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
}

export interface AnsiSegment {
  text: string;
  classes: string;
}

// CSI (ESC [ … final byte), OSC (ESC ] … BEL or ESC \), and any other two-byte escape.
const ESCAPE = /\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]?/g;

/** Splits `text` into styled segments; pure, so the same text always renders the same. */
export function parseAnsi(text: string): AnsiSegment[] {
  const segments: AnsiSegment[] = [];
  let style: Style = {};
  let last = 0;
  const push = (chunk: string) => {
    if (chunk === '') return;
    const classes = classesOf(style);
    const previous = segments[segments.length - 1];
    if (previous !== undefined && previous.classes === classes) previous.text += chunk;
    else segments.push({ text: chunk, classes });
  };
  for (const match of text.matchAll(ESCAPE)) {
    push(text.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] === 'm') style = applySgr(style, match[1] ?? '');
  }
  push(text.slice(last));
  return segments;
}

function applySgr(style: Style, params: string): Style {
  const codes = params === '' ? [0] : params.split(';').map((p) => Number(p) || 0);
  let next: Style = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (code === 0) next = {};
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 22) next = { ...next, bold: false, dim: false };
    else if (code === 23) next.italic = false;
    else if (code === 24) next.underline = false;
    else if (code >= 30 && code <= 37) next.fg = code - 30;
    else if (code >= 90 && code <= 97) next.fg = code - 90 + 8;
    else if (code === 39) delete next.fg;
    else if (code >= 40 && code <= 47) next.bg = code - 40;
    else if (code >= 100 && code <= 107) next.bg = code - 100 + 8;
    else if (code === 49) delete next.bg;
    else if ((code === 38 || code === 48) && codes[i + 1] === 5) {
      // 256 colours: the first 16 are the palette; the rest are left unstyled.
      const n = codes[i + 2] ?? 0;
      if (n < 16) next[code === 38 ? 'fg' : 'bg'] = n;
      i += 2;
    } else if ((code === 38 || code === 48) && codes[i + 1] === 2) i += 4; // true colour: skipped
  }
  return next;
}

function classesOf(style: Style): string {
  const classes: string[] = [];
  if (style.fg !== undefined) classes.push(`ansi-fg-${style.fg}`);
  if (style.bg !== undefined) classes.push(`ansi-bg-${style.bg}`);
  if (style.bold) classes.push('ansi-bold');
  if (style.dim) classes.push('ansi-dim');
  if (style.italic) classes.push('ansi-italic');
  if (style.underline) classes.push('ansi-underline');
  return classes.join(' ');
}

/** Terminal text, coloured. */
export function Ansi({ text }: { text: string }) {
  return (
    <>
      {parseAnsi(text).map((s, i) =>
        s.classes === '' ? (
          s.text
        ) : (
          <span key={i} class={s.classes}>
            {s.text}
          </span>
        ),
      )}
    </>
  );
}
