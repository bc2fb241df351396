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

const ASSISTANT_ITEMS = new Set([
  'function_call',
  'custom_tool_call',
  'reasoning',
  'local_shell_call',
  'web_search_call',
]);
const RESULT_ITEMS = new Set(['function_call_output', 'custom_tool_call_output']);

/** Reduces an OpenAI Responses request body (POST /v1/responses) to a {@link RequestView}. */
export function inspectResponses(body: Record<string, unknown>): RequestView {
  const items: Record<string, unknown>[] =
    typeof body.input === 'string'
      ? [{ type: 'message', role: 'user', content: body.input }]
      : asList(body.input).filter(isRecord);
  const names = new Map<string, string>();
  let lastUser: string | undefined;
  let lastAssistant = -1;
  items.forEach((item, index) => {
    const type = asString(item.type) ?? 'message';
    if (
      (type === 'function_call' || type === 'custom_tool_call') &&
      typeof item.call_id === 'string' &&
      typeof item.name === 'string'
    )
      names.set(item.call_id, item.name);
    if (ASSISTANT_ITEMS.has(type) || (type === 'message' && item.role === 'assistant')) lastAssistant = index;
    if (type === 'message' && item.role === 'user') {
      const text = textOf(item.content);
      if (text !== '') lastUser = text;
    }
  });
  const toolResults: ToolResultView[] = [];
  for (const item of items.slice(lastAssistant + 1)) {
    if (!RESULT_ITEMS.has(asString(item.type) ?? '')) continue;
    const callId = asString(item.call_id);
    const tool = callId === undefined ? undefined : names.get(callId);
    toolResults.push({
      text: textOf(item.output),
      isError: false,
      ...defined({ tool, callId }),
    });
  }
  const format = isRecord(body.text) ? body.text.format : undefined;
  return {
    api: 'responses',
    model: asString(body.model) ?? 'neo-scripted',
    stream: body.stream === true,
    tools: offeredTools(asList(body.tools)),
    ...defined({ lastUser }),
    toolResults,
    texts: [
      asString(body.instructions) ?? '',
      ...items.filter((i) => (asString(i.type) ?? 'message') === 'message').map((i) => textOf(i.content)),
    ],
    ...(isRecord(format) && format.type === 'json_schema' ? { jsonSchema: format.schema } : {}),
    ...(isRecord(format) && format.type === 'json_object' ? { jsonObject: true } : {}),
  };
}

/** Function and custom tools, including those grouped in a `namespace` tool. */
function offeredTools(tools: readonly unknown[]): OfferedTool[] {
  const out: OfferedTool[] = [];
  for (const tool of tools.filter(isRecord)) {
    if (tool.type === 'namespace') out.push(...offeredTools(asList(tool.tools)));
    else if (typeof tool.name === 'string')
      out.push({ name: tool.name, kind: tool.type === 'custom' ? 'custom' : 'function' });
  }
  return out;
}
