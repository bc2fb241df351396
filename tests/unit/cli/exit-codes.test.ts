import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { EXIT, EXIT_MEANINGS, exitCodeForCause, exitCodesHelp } from '../../../cli/exit-codes.js';

describe('exit codes: one table, one rule from a cause to its code', () => {
  it('maps each class of failure to its own code', () => {
    expect(
      [
        'FLOW_GATE_FAILED',
        'FLOW_MAX_ROUNDS',
        'FLOW_BUDGET_EXCEEDED',
        'FLOW_AGENT_ERROR',
        'FLOW_STEP_STALLED',
        'TRANSPORT_UNAUTHENTICATED',
        'SESSION_START_FAILED',
        'AGENT_TURN_FAILED',
        'FLOW_NO_CHANGE',
        'DEF_UNKNOWN_PERSONA',
        'FLOW_INPUT_NUL_BYTE',
        'FLOW_INTERRUPTED',
        'FLOW_COMMAND_FAILED',
        'FLOW_APPROVAL_REJECTED',
        'PERSONA_FAILED',
        'STORE_TAMPERED',
        'STORE_UNAUTHENTICATED',
        'ENGINE_DB_UNREACHABLE',
        'ENGINE_DB_SCHEMA',
      ].map((code) => [code, exitCodeForCause(code)]),
    ).toEqual([
      ['FLOW_GATE_FAILED', 3],
      ['FLOW_MAX_ROUNDS', 3],
      ['FLOW_BUDGET_EXCEEDED', 4],
      ['FLOW_AGENT_ERROR', 5],
      ['FLOW_STEP_STALLED', 5],
      ['TRANSPORT_UNAUTHENTICATED', 5],
      ['SESSION_START_FAILED', 5],
      ['AGENT_TURN_FAILED', 5],
      ['FLOW_NO_CHANGE', 6],
      ['DEF_UNKNOWN_PERSONA', 2],
      ['FLOW_INPUT_NUL_BYTE', 2],
      ['FLOW_INTERRUPTED', 130],
      ['FLOW_COMMAND_FAILED', 1],
      ['FLOW_APPROVAL_REJECTED', 1],
      ['PERSONA_FAILED', 1],
      ['STORE_TAMPERED', 8],
      ['STORE_UNAUTHENTICATED', 8],
      ['ENGINE_DB_UNREACHABLE', 9],
      ['ENGINE_DB_SCHEMA', 9],
    ]);
    expect(exitCodeForCause(undefined)).toBe(EXIT.failed);
  });

  it('every code is distinct, explained once, in --help and in docs/flows.md', async () => {
    const codes = Object.values(EXIT);
    expect(new Set(codes).size).toBe(codes.length);
    expect(EXIT_MEANINGS.map(([code]) => code)).toEqual([...codes].sort((a, b) => a - b));
    const help = exitCodesHelp();
    const docs = await readFile(new URL('../../../docs/flows.md', import.meta.url), 'utf8');
    for (const [code, meaning] of EXIT_MEANINGS) {
      expect(help).toContain(`${String(code).padStart(3)}  ${meaning}`);
      expect(docs).toContain(`| ${code} | ${meaning} |`);
    }
  });
});
