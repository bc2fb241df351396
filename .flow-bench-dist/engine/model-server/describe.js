const MAX_TEXT = 48;
/**
 * One human line per request, for `neo model serve`'s stderr:
 * `#3 POST /v1/messages anthropic main turn 2 → 200 text "Created…" tools Write`.
 */
export function describeRequest(entry) {
    const parts = [`#${entry.seq}`, entry.method, entry.path];
    if (entry.api !== undefined)
        parts.push(entry.api);
    parts.push(entry.role);
    if (entry.turn !== undefined)
        parts.push(`turn ${entry.turn + 1}`);
    if (entry.fallback === true)
        parts.push('(no turn matched: fallback)');
    const reply = entry.reply;
    if (reply !== undefined) {
        parts.push('→', String(reply.status));
        if (reply.text !== undefined)
            parts.push(`text ${JSON.stringify(shorten(reply.text))}`);
        if (reply.tools !== undefined && reply.tools.length > 0)
            parts.push(`tools ${reply.tools.join(',')}`);
        if (reply.stall === true)
            parts.push('(stalls)');
    }
    const line = parts.join(' ');
    return entry.warnings.length === 0 ? line : `${line}\n${entry.warnings.map((w) => `  warning: ${w}`).join('\n')}`;
}
function shorten(text) {
    const flat = text.replace(/\s+/g, ' ');
    return flat.length <= MAX_TEXT ? flat : `${flat.slice(0, MAX_TEXT - 1)}…`;
}
