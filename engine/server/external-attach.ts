/**
 * The terminal-attach command of a recorded session (seed 004 §5): the backend descriptor's
 * `externalAttach.commandTemplate` filled in with the latest backend session id and the cwd.
 * The template is split into words first and each filled word quoted for a POSIX shell, so a
 * cwd with spaces or quotes stays one argument and nothing recorded can add a command. The
 * browser gets only the finished string.
 */
import { createRequire } from 'node:module';
import type { CodeSessionRecord } from '../session/index.js';
import { defined } from '../util/defined.js';

export interface ExternalAttachTemplate {
  commandTemplate: string;
  note?: string;
}

export type ExternalAttach = { available: true; command: string; note?: string } | { available: false; reason: string };

const PLACEHOLDER = /\{(sessionId|cwd)\}/g;

export function renderExternalAttach(
  template: ExternalAttachTemplate | undefined,
  record: Pick<CodeSessionRecord, 'cwd' | 'runs'>,
): ExternalAttach {
  if (template === undefined) return { available: false, reason: 'the backend has no interactive resume command' };
  const externalId = [...record.runs].reverse().find((run) => run.externalSessionId !== undefined)?.externalSessionId;
  if (externalId === undefined || externalId === '')
    return { available: false, reason: 'no run recorded the backend session id' };
  const shell = createRequire(import.meta.url)('shell-quote') as typeof import('shell-quote');
  const words = shell.parse(template.commandTemplate, (name) => `$${name}`);
  if (!words.every((w): w is string => typeof w === 'string'))
    return { available: false, reason: 'the backend descriptor has a command template neo cannot render' };
  const needsCwd = words.some((w) => w.includes('{cwd}'));
  if (needsCwd && (record.cwd === undefined || record.cwd === ''))
    return {
      available: false,
      reason: 'the command needs the working directory, which was never recorded for this session',
    };
  const values: Record<string, string> = { sessionId: externalId, cwd: record.cwd };
  const filled = words.map((w) => w.replace(PLACEHOLDER, (_, name: string) => values[name]!));
  return {
    available: true,
    command: shell.quote(filled),
    ...defined({ note: template.note }),
  };
}
