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

/**
 * Reduces a Gemini `generateContent` / `streamGenerateContent` request body to a
 * {@link RequestView}; the model and streaming come from the URL.
 */
export function inspectGemini(body: Record<string, unknown>, model: string, stream: boolean): RequestView {
  const contents = asList(body.contents).filter(isRecord);
  const tools: OfferedTool[] = [];
  for (const tool of asList(body.tools).filter(isRecord)) {
    for (const decl of asList(tool.functionDeclarations ?? tool.function_declarations).filter(isRecord)) {
      if (typeof decl.name === 'string') tools.push({ name: decl.name, kind: 'function' });
    }
  }
  let lastUser: string | undefined;
  for (const content of contents) {
    if (content.role === 'model') continue;
    const parts = asList(content.parts).filter(isRecord);
    if (parts.some((p) => p.functionResponse !== undefined)) continue;
    const text = parts
      .map((p) => asString(p.text) ?? '')
      .filter((t) => t !== '')
      .join('\n');
    if (text !== '') lastUser = text;
  }
  const last = contents[contents.length - 1];
  const toolResults: ToolResultView[] = [];
  if (last !== undefined && last.role !== 'model') {
    for (const part of asList(last.parts).filter(isRecord)) {
      const response = isRecord(part.functionResponse) ? part.functionResponse : undefined;
      if (response === undefined) continue;
      const payload = response.response;
      const text =
        isRecord(payload) && typeof payload.output === 'string'
          ? payload.output
          : isRecord(payload) && typeof payload.error === 'string'
            ? payload.error
            : JSON.stringify(payload ?? null);
      const tool = asString(response.name);
      toolResults.push({
        text,
        isError: isRecord(payload) && payload.error !== undefined,
        ...defined({ tool }),
      });
    }
  }
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  const system = isRecord(body.systemInstruction) ? textOf(asList(body.systemInstruction.parts)) : '';
  return {
    api: 'gemini',
    model,
    stream,
    tools,
    ...defined({ lastUser }),
    toolResults,
    texts: [system, ...contents.map((c) => textOf(asList(c.parts)))],
    ...defined({ jsonSchema: schema }),
    ...(schema === undefined && config.responseMimeType === 'application/json' ? { jsonObject: true } : {}),
  };
}
