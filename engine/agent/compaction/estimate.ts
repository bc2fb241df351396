/** A cheap token estimate (about four characters a token) for deciding when to compact. */
import type { Message } from '../messages.js';

export function estimateTokens(messages: readonly Message[], system = ''): number {
  let chars = system.length;
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'text' || block.type === 'reasoning') chars += block.text.length;
      else if (block.type === 'tool_result') chars += block.content.length;
      else chars += block.name.length + JSON.stringify(block.input ?? {}).length;
    }
  }
  return Math.ceil(chars / 4);
}
