import { ScriptTransport } from '../../engine/transports/script/index.js';
import { fakeTransport } from './fake-backends.js';
import { fakeScenario, scriptScenario } from './scenarios.js';
import { describeTransportContract } from './transport-contract.js';

describeTransportContract('script', () => new ScriptTransport(), scriptScenario);
describeTransportContract(
  'claude-code (fake claude)',
  () => fakeTransport('claude-code'),
  fakeScenario('claude-code', 'hello from fake claude\n', [0.0125, 0.0125]),
);
// (1000 − 200) × $1.25 + 200 × $0.125 + 150 × $10 per million tokens, from the descriptor's price table.
describeTransportContract(
  'codex (fake codex app-server)',
  () => fakeTransport('codex'),
  fakeScenario('codex', 'hello from fake codex\n', [0.002525, 0.002525]),
);
describeTransportContract(
  'acp (fake ACP agent)',
  () => fakeTransport('acp'),
  fakeScenario('acp', 'hello from fake acp\n', [0.004, 0.004]),
);
