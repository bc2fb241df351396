import {
  asList,
  asString,
  isRecord,
  textOf,
  type OfferedTool,
  type RequestView,
  type ToolResultView,
} from './request-view.js';
import { defined } from '../util/defined.js';

/** Reduces an Anthropic Messages request body (POST /v1/messages) to a {@link RequestView}. */
export function inspectAnthropic(body: Record<string, unknown>): RequestView {
  const messages = asList(body.messages).filter(isRecord);
  const tools: OfferedTool[] = asList(body.tools)
    .filter(isRecord)
    .flatMap((tool) => (typeof tool.name === 'string' ? [{ name: tool.name, kind: 'function' as const }] : []));
  const texts = [textOf(body.system), ...messages.map((m) => textOf(m.content))];
  const names = toolNamesById(messages);
  let lastUser: string | undefined;
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const parts =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : asList(message.content).filter(isRecord);
    if (parts.some((p) => p.type === 'tool_result')) continue;
    const text = parts
      .filter((p) => p.type === 'text')
      .map((p) => asString(p.text) ?? '')
      .join('\n');
    if (text !== '') lastUser = text;
  }
  const last = messages[messages.length - 1];
  const toolResults: ToolResultView[] = [];
  if (last?.role === 'user') {
    for (const part of asList(last.content).filter(isRecord)) {
      if (part.type !== 'tool_result') continue;
      const callId = asString(part.tool_use_id);
      const tool = callId === undefined ? undefined : names.get(callId);
      toolResults.push({
        text: textOf(part.content),
        isError: part.is_error === true,
        ...defined({ tool, callId }),
      });
    }
  }
  const format = isRecord(body.output_config) ? body.output_config.format : body.output_format;
  return {
    api: 'anthropic',
    model: asString(body.model) ?? 'neo-scripted',
    stream: body.stream === true,
    tools,
    ...defined({ lastUser }),
    toolResults,
    texts,
    ...(isRecord(format) && format.type === 'json_schema' ? { jsonSchema: format.schema } : {}),
  };
}

function toolNamesById(messages: readonly Record<string, unknown>[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of asList(message.content).filter(isRecord)) {
      if (part.type === 'tool_use' && typeof part.id === 'string' && typeof part.name === 'string')
        names.set(part.id, part.name);
    }
  }
  return names;
}
