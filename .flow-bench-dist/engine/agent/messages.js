/** The text of every text block, joined. */
export function textOf(blocks) {
    return blocks
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('');
}
/** The tool calls of a response, in order. */
export function toolUsesOf(blocks) {
    return blocks.filter((b) => b.type === 'tool_use');
}
/**
 * Merges consecutive messages of the same role. The transcript may hold a summary, pinned notes
 * and a user turn back to back; every API wants roles to alternate.
 */
export function mergeRoles(messages) {
    const out = [];
    for (const message of messages) {
        const last = out[out.length - 1];
        if (last !== undefined && last.role === message.role) {
            // Tool results must lead a user message (Anthropic rejects text before them).
            const blocks = [...last.content, ...message.content];
            const results = blocks.filter((b) => b.type === 'tool_result');
            const rest = blocks.filter((b) => b.type !== 'tool_result');
            out[out.length - 1] = { role: last.role, content: [...results, ...rest] };
        }
        else {
            out.push({ role: message.role, content: [...message.content] });
        }
    }
    return out;
}
