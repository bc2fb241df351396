/**
 * Splits `---\n<yaml>\n---\n<body>`. Accepts LF and CRLF. The closing fence is a line of exactly
 * `---` (or `...`). Offsets are returned, never re-derived by scanning later.
 */
export function splitFrontmatter(text) {
    const opener = /^---[ \t]*\r?\n/.exec(text);
    if (!opener)
        return { ok: false, code: 'DEF_FRONTMATTER_MISSING', offset: 0, endOffset: Math.min(text.indexOf('\n') >>> 0, text.length) };
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
