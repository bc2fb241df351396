import type { ModelScript } from '../generated/model-script.js';
import type { Exchange } from './handle-model.js';
import { isRecord } from './request-view.js';
import { sendJson } from './respond.js';
import type { Route } from './routes.js';
import { estimateTokens } from './text.js';
import type { TurnBookState } from './turn-book.js';

const DEFAULT_MODELS = ['neo-scripted'];

/** Answers everything that is not a model turn: model lists, token counts, preflight, state, 404. */
export function handleOther(
  exchange: Exchange,
  target: Route,
  context: { script: ModelScript; state: () => TurnBookState },
): void {
  const { res, entry, log } = exchange;
  const models = context.script.models ?? DEFAULT_MODELS;
  let status = 200;
  switch (target.kind) {
    case 'root':
      // Claude Code sends `HEAD /` as a preflight before its first request.
      if (exchange.req.method === 'HEAD') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end();
      } else {
        sendJson(res, 200, { name: 'neo model server', ok: true });
      }
      break;
    case 'state':
      sendJson(res, 200, { turns: context.state(), requests: log.entries.length });
      break;
    case 'count-tokens':
      sendJson(res, 200, { input_tokens: estimateTokens(JSON.stringify(exchange.body ?? '')) });
      break;
    case 'gemini':
      sendJson(res, 200, { totalTokens: estimateTokens(JSON.stringify(exchange.body ?? '')) });
      break;
    case 'models':
      sendJson(
        res,
        200,
        target.gemini
          ? { models: models.map(geminiModel) }
          : {
              object: 'list',
              data: models.map(openAiModel),
              has_more: false,
              first_id: models[0] ?? null,
              last_id: models[models.length - 1] ?? null,
            },
      );
      break;
    case 'model':
      sendJson(res, 200, target.gemini ? geminiModel(target.id) : openAiModel(target.id));
      break;
    default:
      status = 404;
      sendJson(res, 404, {
        type: 'error',
        error: {
          type: 'not_found_error',
          message: `neo model server: no route for ${exchange.req.method} ${exchange.url.pathname}`,
        },
      });
  }
  entry.reply = { kind: status === 200 ? 'reply' : 'error', status };
  if (isRecord(exchange.body) && typeof exchange.body.model === 'string') entry.model = exchange.body.model;
  log.add(entry);
}

/** One entry that reads as both an OpenAI and an Anthropic model object. */
function openAiModel(id: string) {
  return {
    id,
    object: 'model',
    type: 'model',
    created: 0,
    created_at: '1970-01-01T00:00:00Z',
    display_name: id,
    owned_by: 'neo',
  };
}

function geminiModel(id: string) {
  return {
    name: `models/${id}`,
    displayName: id,
    supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
    inputTokenLimit: 1_000_000,
    outputTokenLimit: 65_536,
  };
}
