/** What every CLI adapter shares: the process, the session lifecycle, JSON-RPC, launch, probe, posture gate, cost. */
export { CliProcess, describeCliExit, type CliExit, type CliProcessOptions } from './cli-process.js';
export { CliSession, type CliSessionInit } from './cli-session.js';
export { cliTransport, type OpenCliSession } from './cli-transport.js';
export { CumulativeCost, roundUsd, usdForUsage } from './cost.js';
export { EventChannel } from './event-channel.js';
export {
  JsonRpcError,
  JsonRpcPeer,
  RPC_INTERNAL_ERROR,
  RPC_INVALID_PARAMS,
  RPC_METHOD_NOT_FOUND,
  type JsonRpcPeerOptions,
} from './json-rpc.js';
export { binaryMissing, planLaunch, postureEnv, postureTarget, type LaunchPlan } from './launch.js';
export { agentEnv, configHomeVariables, REACH_ENV_NAMES } from './agent-env.js';
export {
  namedVariables,
  prepareAgentHome,
  readUserFile,
  userCopy,
  type AgentHome,
  type ConfigHomeEntry,
} from './agent-home.js';
export { binaryEnvVar, requestedBinary, resolveBinary, type ResolvedBinary } from './binary.js';
export { gateAsk } from './posture-gate.js';
export {
  isPermanentProviderCode,
  PROVIDER_CODES,
  providerCode,
  providerFailureMessage,
  type ProviderCode,
} from './provider-failure.js';
export { clearProbeCache, extractVersion, probeCli } from './probe.js';
export { handshake } from './startup.js';
export { DEFAULT_TUNING, formatSeconds, readTuning, type Tuning } from './tuning.js';
