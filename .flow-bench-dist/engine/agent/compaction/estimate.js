export function estimateTokens(messages, system = '') {
    let chars = system.length;
    for (const message of messages) {
        for (const block of message.content) {
            if (block.type === 'text' || block.type === 'reasoning')
                chars += block.text.length;
            else if (block.type === 'tool_result')
                chars += block.content.length;
            else
                chars += block.name.length + JSON.stringify(block.input ?? {}).length;
        }
    }
    return Math.ceil(chars / 4);
}
