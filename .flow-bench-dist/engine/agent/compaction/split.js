function startsTurn(message) {
    return message.role === 'user' && message.pin !== 'summary' && !message.content.some((b) => b.type === 'tool_result');
}
/**
 * The index the kept tail starts at: the start of the `keepTurns`-th most recent turn; when that
 * leaves nothing to summarize, fewer turns; failing that, the last assistant message (one long
 * turn full of tool calls). 0 means nothing can be cut. The compactor only asks when the context
 * is over its threshold, so cutting deeper beats failing the next request.
 */
export function compactionSplit(messages, keepTurns) {
    const starts = [];
    messages.forEach((m, i) => {
        if (startsTurn(m))
            starts.push(i);
    });
    // Keep as many of the last turns as still leaves something to summarize.
    for (let keep = Math.min(keepTurns, starts.length); keep >= 1; keep--) {
        const split = starts[starts.length - keep];
        if (split > 0 && hasSummarizable(messages, split))
            return split;
    }
    const lastAssistant = messages.findLastIndex((m) => m.role === 'assistant');
    return lastAssistant > 0 && hasSummarizable(messages, lastAssistant) ? lastAssistant : 0;
}
/** Whether the part before `split` holds anything but pinned messages. */
function hasSummarizable(messages, split) {
    for (let i = 0; i < split; i++)
        if (messages[i].pin === undefined)
            return true;
    return false;
}
