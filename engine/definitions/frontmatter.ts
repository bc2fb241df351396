/** Where the YAML frontmatter and the Markdown body sit inside a file's text. */
export interface FrontmatterSplit {
  yaml: string;
  /** Character offset of the YAML's first character in the file. */
  yamlOffset: number;
  /** Number of lines before the YAML's first line (the `---` line). */
  yamlLineOffset: number;
  body: string;
}

export type FrontmatterResult =
  | { ok: true; split: FrontmatterSplit }
  | { ok: false; code: 'DEF_FRONTMATTER_MISSING' | 'DEF_FRONTMATTER_UNTERMINATED'; offset: number; endOffset: number };

/**
 * Splits `---\n<yaml>\n---\n<body>`. Accepts LF and CRLF. The closing fence is a line of exactly
 * `---` (or `...`). Offsets are returned, never re-derived by scanning later.
 */
export function splitFrontmatter(text: string): FrontmatterResult {
  const opener = /^---[ \t]*\r?\n/.exec(text);
  if (!opener)
    return {
      ok: false,
      code: 'DEF_FRONTMATTER_MISSING',
      offset: 0,
      endOffset: Math.min(text.indexOf('\n') >>> 0, text.length),
    };
  const yamlOffset = opener[0].length;
  const closer = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;
  closer.lastIndex = 0;
  const rest = text.slice(yamlOffset);
  const match = closer.exec(rest);
  if (!match)
    return { ok: false, code: 'DEF_FRONTMATTER_UNTERMINATED', offset: 0, endOffset: opener[0].trimEnd().length };
  const yamlEnd = yamlOffset + match.index;
  return {
    ok: true,
    split: {
      yaml: text.slice(yamlOffset, yamlEnd),
      yamlOffset,
      yamlLineOffset: 1,
      body: text.slice(yamlEnd + match[0].length),
    },
  };
}
