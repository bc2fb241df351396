/**
 * Request bodies: JSON only, at most {@link MAX_BODY_BYTES}, validated against the schema of
 * their route (ajv, all errors) before a route sees them. A body that is too big is cut off
 * while it streams, not after it has been buffered.
 */
import { createRequire } from 'node:module';
import type { JSONSchemaType, ValidateFunction } from 'ajv';
import { HttpError } from './envelope.js';
import { STOP_OUTCOMES, type StopOutcome } from '../session/index.js';

/** 64 KB: guidance and reasons are prose, not payloads. */
export const MAX_BODY_BYTES = 64 * 1024;
/** The longest guidance or reason a person may send. */
const MAX_TEXT = 16_000;

export interface GuidanceBody {
  text: string;
}
export interface AnswerBody {
  clarificationId: string;
  allow: boolean;
  reason?: string;
  note?: string;
}
export interface DecisionBody {
  decision: string;
  reason?: string;
}
export interface StopBody {
  outcome?: StopOutcome;
  note?: string;
}
export type EmptyBody = Record<string, never>;

const text = (description: string) => ({ type: 'string', maxLength: MAX_TEXT, description }) as const;

export const SCHEMAS = {
  guidance: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: { text: { type: 'string', minLength: 1, maxLength: MAX_TEXT, pattern: '\\S' } },
  } as JSONSchemaType<GuidanceBody>,
  answer: {
    type: 'object',
    additionalProperties: false,
    required: ['clarificationId', 'allow'],
    properties: {
      clarificationId: { type: 'string', minLength: 1, maxLength: 200 },
      allow: { type: 'boolean' },
      reason: { ...text('why (a deny reason is carried into the next turn)'), nullable: true },
      note: { ...text('a note for the record'), nullable: true },
    },
  } as JSONSchemaType<AnswerBody>,
  decision: {
    type: 'object',
    additionalProperties: false,
    required: ['decision'],
    properties: {
      decision: { type: 'string', minLength: 1, maxLength: 128 },
      reason: { ...text('why, recorded with the answer'), nullable: true },
    },
  } as JSONSchemaType<DecisionBody>,
  stop: {
    type: 'object',
    additionalProperties: false,
    properties: {
      outcome: { type: 'string', enum: [...STOP_OUTCOMES], nullable: true },
      note: { ...text('the verdict, in words, for the record'), nullable: true },
    },
  } as JSONSchemaType<StopBody>,
  empty: { type: 'object', additionalProperties: false, properties: {} } as unknown as JSONSchemaType<EmptyBody>,
} as const;

type Schemas = typeof SCHEMAS;
export type BodyOf<K extends keyof Schemas> = Schemas[K] extends JSONSchemaType<infer T> ? T : never;

let compiled: Map<string, ValidateFunction> | undefined;

function validator(name: keyof Schemas): ValidateFunction {
  if (compiled === undefined) {
    // Required, not imported: ajv is CommonJS (see engine/flow/agent/output-schema.ts).
    const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    compiled = new Map(Object.entries(SCHEMAS).map(([key, schema]) => [key, ajv.compile(schema)]));
  }
  return compiled.get(name)!;
}

/**
 * Reads and validates a request body. No body (or an empty one) reads as `{}`, so routes whose
 * body is optional validate it the same way.
 */
export async function readBody<K extends keyof Schemas>(request: Request, name: K): Promise<BodyOf<K>> {
  const type = request.headers.get('content-type');
  const raw = await readCapped(request);
  if (raw.length > 0 && (type === null || !/^application\/json\s*(;|$)/i.test(type)))
    throw new HttpError(415, 'SERVER_UNSUPPORTED_MEDIA_TYPE', 'request bodies are JSON', {
      hint: 'send Content-Type: application/json',
    });
  let value: unknown = {};
  if (raw.trim() !== '') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new HttpError(400, 'SERVER_BAD_JSON', 'the request body is not valid JSON');
    }
  }
  const validate = validator(name);
  if (!validate(value)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || 'body'} ${e.message ?? 'is invalid'}`);
    throw new HttpError(400, 'SERVER_BAD_BODY', `invalid request body: ${problems.join('; ')}`);
  }
  return value as BodyOf<K>;
}

async function readCapped(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(): HttpError {
  return new HttpError(413, 'SERVER_BODY_TOO_LARGE', `request bodies are at most ${MAX_BODY_BYTES / 1024} KB`);
}
