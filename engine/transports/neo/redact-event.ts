/** Every string an event of neo's own agent carries, through the session's redactor. */
import type { AgentEvent } from '../types.js';

export function redactEvent(event: AgentEvent, redact: (text: string) => string): AgentEvent {
  switch (event.type) {
    case 'text':
    case 'reasoning':
      return { ...event, text: redact(event.text) };
    case 'tool_result':
      return { ...event, output: redact(event.output) };
    case 'error':
      return { ...event, message: redact(event.message) };
    case 'turn_complete':
      return event.text !== undefined ? { ...event, text: redact(event.text) } : event;
    case 'tool_use':
      return { ...event, input: redactJson(event.input ?? null, redact) };
    case 'clarify':
      return {
        ...event,
        input: redactJson(event.input ?? null, redact),
        ...(event.ask === undefined ? {} : { ask: redactJson(event.ask, redact) }),
      };
    case 'gate_decision':
      return { ...event, ask: redactJson(event.ask, redact), reason: redact(event.reason) };
    default:
      return event;
  }
}

export function redactJson<T>(value: T, redact: (text: string) => string): T {
  return JSON.parse(redact(JSON.stringify(value))) as T;
}
