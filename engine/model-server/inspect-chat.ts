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

/** Reduces an OpenAI Chat Completions request body (POST /v1/chat/completions) to a {@link RequestView}. */
export function inspectChat(body: Record<string, unknown>): RequestView {
  const messages = asList(body.messages).filter(isRecord);
  const tools: OfferedTool[] = [];
  for (const tool of asList(body.tools).filter(isRecord)) {
    if (tool.type === 'custom' && isRecord(tool.custom) && typeof tool.custom.name === 'string')
      tools.push({ name: tool.custom.name, kind: 'custom' });
    else if (isRecord(tool.function) && typeof tool.function.name === 'string')
      tools.push({ name: tool.function.name, kind: 'function' });
  }
  const names = new Map<string, string>();
  let lastUser: string | undefined;
  let lastAssistant = -1;
  messages.forEach((message, index) => {
    if (message.role === 'assistant') {
      lastAssistant = index;
      for (const call of asList(message.tool_calls).filter(isRecord)) {
        const fn = isRecord(call.function) ? call.function : isRecord(call.custom) ? call.custom : undefined;
        if (typeof call.id === 'string' && typeof fn?.name === 'string') names.set(call.id, fn.name);
      }
    }
    if (message.role === 'user') {
      const text = textOf(message.content);
      if (text !== '') lastUser = text;
    }
  });
  const toolResults: ToolResultView[] = [];
  for (const message of messages.slice(lastAssistant + 1)) {
    if (message.role !== 'tool') continue;
    const callId = asString(message.tool_call_id);
    const tool = callId === undefined ? undefined : names.get(callId);
    toolResults.push({
      text: textOf(message.content),
      isError: false,
      ...defined({ tool, callId }),
    });
  }
  const format = isRecord(body.response_format) ? body.response_format : undefined;
  const schema = format?.type === 'json_schema' && isRecord(format.json_schema) ? format.json_schema.schema : undefined;
  const options = isRecord(body.stream_options) ? body.stream_options : undefined;
  return {
    api: 'chat',
    model: asString(body.model) ?? 'neo-scripted',
    stream: body.stream === true,
    tools,
    ...defined({ lastUser }),
    toolResults,
    texts: messages.map((m) => textOf(m.content)),
    ...defined({ jsonSchema: schema }),
    ...(format?.type === 'json_object' ? { jsonObject: true } : {}),
    includeUsage: options?.include_usage === true,
  };
}
