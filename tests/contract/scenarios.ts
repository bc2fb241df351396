import { join } from 'node:path';
import type { StartSessionOptions } from '../../engine/transports/index.js';
import { SCRIPT_DESCRIPTOR } from '../helpers/script.js';
import { fakeStartOptions, readWireLog, type FakeProtocol } from './fake-backends.js';
import { isAlive } from './processes.js';
import type { ContractCase, ContractContext, ContractScenario } from './transport-contract.js';

const BEHAVIOUR: Record<ContractCase, string> = { write: 'normal', hang: 'hang', spawn: 'grandchild' };

/** Every pid the fake CLI logged (itself, and the helper it spawned) that is still running. */
function fakeSurvivors(ctx: ContractContext): number[] {
  const pids = new Set<number>();
  for (const record of readWireLog(join(ctx.home, 'wire.jsonl'))) {
    pids.add(record.pid);
    if (record.childPid !== undefined) pids.add(record.childPid);
  }
  return [...pids].filter(isAlive);
}

/** The contract scenario for one fake CLI: behaviours selected through FAKE_CLI_BEHAVIOUR. */
export function fakeScenario(protocol: FakeProtocol, written: string, costs: [number, number]): ContractScenario {
  const reportsUsage = protocol !== 'acp';
  return {
    options(kind, ctx, overrides: Partial<StartSessionOptions> = {}) {
      return fakeStartOptions(
        protocol,
        { cwd: ctx.cwd, home: ctx.home, log: join(ctx.home, 'wire.jsonl'), behaviour: BEHAVIOUR[kind] },
        overrides,
      );
    },
    written: { path: 'hello.txt', content: written },
    costs,
    reportsUsage,
    // Each fake reports its model calls as it streams: Claude's assistant lines, Codex's token
    // usage updates, the ACP agent's cost updates.
    streamsUsage: true,
    echoesGuidance: true,
    survivors: fakeSurvivors,
    spawnsProcesses: true,
    // Codex asks nothing under plan (approvals never); the others ask and neo's gate denies.
    asksUnderPlan: protocol !== 'codex',
  };
}

const WRITE_SCRIPT = {
  turns: [
    {
      cost: { usd: 0.01, inputTokens: 100, outputTokens: 20 },
      actions: [
        { think: 'The user wants a file.' },
        { say: 'I will create hello.txt.' },
        { write: { path: 'hello.txt', content: 'hello from the script\n' } },
        { say: 'Done with hello.txt.' },
      ],
    },
    { cost: { usd: 0.02 }, actions: [{ say: 'Noted the guidance.' }] },
  ],
};

const HANG_SCRIPT = { turns: [[{ say: 'Working on it.' }, { hang: {} }], [{ say: 'Carrying on.' }]] };

/** The contract scenario for the script backend. */
export const scriptScenario: ContractScenario = {
  options(kind, ctx, overrides: Partial<StartSessionOptions> = {}) {
    return {
      sessionId: 'cs_contract',
      cwd: ctx.cwd,
      brief: 'Create hello.txt with a greeting.',
      posture: 'default',
      descriptor: SCRIPT_DESCRIPTOR,
      sessionDir: join(ctx.home, 'session'),
      env: { PATH: process.env.PATH },
      options: { scriptText: JSON.stringify(kind === 'hang' ? HANG_SCRIPT : WRITE_SCRIPT) },
      ...overrides,
    };
  },
  written: { path: 'hello.txt', content: 'hello from the script\n' },
  costs: [0.01, 0.02],
  reportsUsage: true,
  echoesGuidance: false,
  survivors: () => [],
  spawnsProcesses: false,
  // The script backend's own gate refuses under plan; the refusal is recorded like any gate decision.
  asksUnderPlan: true,
};
