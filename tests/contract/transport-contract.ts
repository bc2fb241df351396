import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentSession, StartSessionOptions, Transport } from '../../engine/transports/index.js';
import { tempDir } from '../helpers/temp.js';
import { EventReader, kinds, lastOf } from './event-reader.js';

/** Folders one contract test runs in. */
export interface ContractContext {
  cwd: string;
  home: string;
}

/**
 * What a backend must be made to play for the contract:
 * - `write`: reason, say something, write a file behind a permission ask, say something; later
 *   prompts are answered with text only.
 * - `hang`: say something, then stall until interrupted; later prompts are answered with text.
 * - `spawn`: like `write`, and the backend starts a helper process of its own.
 */
export type ContractCase = 'write' | 'hang' | 'spawn';

export interface ContractScenario {
  options(
    kind: ContractCase,
    ctx: ContractContext,
    overrides?: Partial<StartSessionOptions>,
  ): StartSessionOptions | Promise<StartSessionOptions>;
  /** The file the write turn creates (relative to cwd) and its content. */
  written: { path: string; content: string };
  /** The cost reported for the write turn and for the guidance turn after it (per turn). */
  costs: [number, number];
  /** Whether the backend reports spending while a turn streams (`usage` events). */
  streamsUsage?: boolean;
  /** Whether turns report token usage (ACP agents report only a context size and a cost). */
  reportsUsage: boolean;
  /** Whether the guidance turn's text repeats the guidance. */
  echoesGuidance: boolean;
  /** Processes the backend started for this test that are still alive. */
  survivors(ctx: ContractContext): number[];
  /** The backend runs child processes (so `spawn` must show some alive before stop). */
  spawnsProcesses: boolean;
  /** The backend asks about the write even under plan, and the posture gate answers it itself (a recorded gate_decision). */
  asksUnderPlan: boolean;
}

const NOTICE = (event: AgentEvent): boolean =>
  event.type === 'error' && event.transient === true && event.fatal !== true;

/**
 * The one contract every transport passes: the normalized event sequence of a turn, clarify
 * answered allow and deny, a posture that forbids the ask, guidance for a second turn,
 * interrupt, resume by external id, per-turn cost, stop idempotency and no surviving process.
 */
export function describeTransportContract(name: string, factory: () => Transport, scenario: ContractScenario): void {
  describe(`transport contract: ${name}`, () => {
    async function open(
      kind: ContractCase,
      overrides: Partial<StartSessionOptions> = {},
      ctx?: ContractContext,
    ): Promise<{ session: AgentSession; reader: EventReader; ctx: ContractContext }> {
      const context = ctx ?? { cwd: await tempDir('neo-contract-cwd-'), home: await tempDir('neo-contract-home-') };
      const session = await factory().start(await scenario.options(kind, context, overrides));
      return { session, reader: new EventReader(session), ctx: context };
    }

    async function firstClarify(
      reader: EventReader,
    ): Promise<{ events: AgentEvent[]; clarify: Extract<AgentEvent, { type: 'clarify' }> }> {
      const events = await reader.untilType('clarify');
      return { events, clarify: lastOf(events, 'clarify') };
    }

    it('plays a turn as started, reasoning, text, tool_use, clarify; allow → tool_result, text, turn_complete', async () => {
      const { session, reader, ctx } = await open('write');
      try {
        const { events, clarify } = await firstClarify(reader);
        expect(kinds(events)).toEqual(['started', 'reasoning', 'text', 'tool_use', 'clarify']);
        const started = lastOf(events, 'started');
        expect(typeof started.externalSessionId).toBe('string');
        expect(started.externalSessionId).not.toBe('');
        const toolUse = lastOf(events, 'tool_use');
        expect(clarify.toolName).toBe(toolUse.name);
        expect(existsSync(join(ctx.cwd, scenario.written.path))).toBe(false);

        await session.answer(clarify.clarificationId, { allow: true });
        const rest = await reader.untilType('turn_complete');
        expect(kinds(rest)).toEqual(['tool_result', 'text', 'turn_complete']);
        const result = lastOf(rest, 'tool_result');
        expect(result.id).toBe(toolUse.id);
        expect(result.isError).toBe(false);
        expect(readFileSync(join(ctx.cwd, scenario.written.path), 'utf8')).toBe(scenario.written.content);
        expect(lastOf(rest, 'turn_complete').text).toBe(lastOf(rest, 'text').text);
      } finally {
        await session.stop();
      }
    });

    it('deny: the tool result is an error, nothing is written, the turn completes', async () => {
      const { session, reader, ctx } = await open('write');
      try {
        const { clarify } = await firstClarify(reader);
        await session.answer(clarify.clarificationId, { allow: false, reason: 'not in this task' });
        const rest = await reader.untilType('turn_complete');
        expect(kinds(rest)).toEqual(['tool_result', 'text', 'turn_complete']);
        expect(lastOf(rest, 'tool_result').isError).toBe(true);
        expect(existsSync(join(ctx.cwd, scenario.written.path))).toBe(false);
      } finally {
        await session.stop();
      }
    });

    it('an answer to an unknown clarification is rejected', async () => {
      const { session, reader } = await open('write');
      try {
        await firstClarify(reader);
        await expect(session.answer('no-such-clarification', { allow: true })).rejects.toMatchObject({
          code: 'TRANSPORT_UNKNOWN_CLARIFICATION',
        });
      } finally {
        await session.stop();
      }
    });

    it('posture plan: the ask is denied without a clarify, nothing is written', async () => {
      const { session, reader, ctx } = await open('write', { posture: 'plan' });
      try {
        const events = await reader.untilType('turn_complete');
        // The gate's own answer is recorded, never left to a driver.
        const gated = events.filter((e) => e.type === 'gate_decision');
        expect(gated).toEqual(
          scenario.asksUnderPlan
            ? [
                expect.objectContaining({
                  allow: false,
                  posture: 'plan',
                  ask: expect.objectContaining({ kind: 'edit' }),
                }),
              ]
            : [],
        );
        expect(kinds(events.filter((e) => !NOTICE(e) && e.type !== 'gate_decision'))).toEqual([
          'started',
          'reasoning',
          'text',
          'tool_use',
          'tool_result',
          'text',
          'turn_complete',
        ]);
        expect(lastOf(events, 'tool_result').isError).toBe(true);
        expect(existsSync(join(ctx.cwd, scenario.written.path))).toBe(false);
      } finally {
        await session.stop();
      }
    });

    it('guidance starts a second turn; each turn reports its own cost', async () => {
      const { session, reader } = await open('write');
      try {
        const { clarify } = await firstClarify(reader);
        await session.answer(clarify.clarificationId, { allow: true });
        const first = lastOf(await reader.untilType('turn_complete'), 'turn_complete');
        await session.sendGuidance('Also mention the README.');
        const second = await reader.untilType('turn_complete');
        expect(kinds(second)).toEqual(['text', 'turn_complete']);
        if (scenario.echoesGuidance) expect(lastOf(second, 'text').text).toContain('Also mention the README.');
        expect(first.costUsd).toBeCloseTo(scenario.costs[0], 9);
        if (scenario.reportsUsage) expect(first.usage?.inputTokens).toBeGreaterThan(0);
        expect(lastOf(second, 'turn_complete').costUsd).toBeCloseTo(scenario.costs[1], 9);
      } finally {
        await session.stop();
      }
    });

    it('spending reported while a turn streams adds up to no more than the turn reports at its end', async () => {
      const { session, reader } = await open('write');
      try {
        const { clarify } = await firstClarify(reader);
        await session.answer(clarify.clarificationId, { allow: true });
        const turn = await reader.untilType('turn_complete');
        const streamed = [...reader.seen].filter((e) => e.type === 'usage');
        const done = lastOf(turn, 'turn_complete');
        const tokens = (u?: { inputTokens?: number; outputTokens?: number }) =>
          (u?.inputTokens ?? 0) + (u?.outputTokens ?? 0);
        const sum = (pick: (e: Extract<AgentEvent, { type: 'usage' }>) => number) =>
          streamed.reduce((total, e) => total + pick(e as Extract<AgentEvent, { type: 'usage' }>), 0);
        expect(streamed.length > 0, 'streams its spending').toBe(scenario.streamsUsage === true);
        expect(sum((e) => tokens(e.usage))).toBeLessThanOrEqual(tokens(done.usage));
        expect(sum((e) => e.costUsd ?? 0)).toBeLessThanOrEqual((done.costUsd ?? 0) + 1e-9);
      } finally {
        await session.stop();
      }
    });

    it('interrupt ends the running turn as interrupted; the session takes another turn', async () => {
      const { session, reader } = await open('hang');
      try {
        await reader.untilType('text');
        await session.interrupt();
        const done = lastOf(await reader.untilType('turn_complete'), 'turn_complete');
        expect(done.interrupted).toBe(true);
        await session.sendGuidance('Carry on.');
        const next = await reader.untilType('turn_complete');
        expect(kinds(next)).toEqual(['text', 'turn_complete']);
        expect(lastOf(next, 'turn_complete').interrupted).toBeUndefined();
      } finally {
        await session.stop();
      }
    });

    it('resumes by the external session id the first session reported', async () => {
      const first = await open('write');
      let externalId: string | undefined;
      try {
        const { events, clarify } = await firstClarify(first.reader);
        externalId = lastOf(events, 'started').externalSessionId;
        await first.session.answer(clarify.clarificationId, { allow: true });
        await first.reader.untilType('turn_complete');
      } finally {
        await first.session.stop();
      }
      expect(externalId).toBeDefined();
      const second = await open('write', { resumeSessionId: externalId! }, first.ctx);
      try {
        const events = await second.reader.untilType('turn_complete');
        expect(lastOf(events, 'started').externalSessionId).toBe(externalId);
        expect(events.some((e) => e.type === 'error' && !NOTICE(e))).toBe(false);
      } finally {
        await second.session.stop();
      }
    });

    it('stop is idempotent, ends the stream, and refuses later commands', async () => {
      const { session, reader } = await open('write');
      await firstClarify(reader);
      await Promise.all([session.stop(), session.stop()]);
      await session.stop();
      const rest = await reader.rest();
      expect(rest.filter((e) => e.type === 'error')).toEqual([]);
      expect(reader.done).toBe(true);
      await expect(session.sendGuidance('more')).rejects.toMatchObject({
        code: expect.stringMatching(/^TRANSPORT_SESSION_(CLOSED|ENDED)$/),
      });
    });

    it('stop mid-turn leaves no process behind', async () => {
      const { session, reader, ctx } = await open('spawn');
      await firstClarify(reader);
      if (scenario.spawnsProcesses) expect(scenario.survivors(ctx).length).toBeGreaterThanOrEqual(2);
      await session.stop();
      await reader.rest();
      expect(scenario.survivors(ctx)).toEqual([]);
    });
  });
}
