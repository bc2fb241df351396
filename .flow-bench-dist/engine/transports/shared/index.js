/** What every CLI adapter shares: the process, the session lifecycle, JSON-RPC, launch, probe, posture gate, cost. */
export { CliProcess } from './cli-process.js';
export { CliSession } from './cli-session.js';
export { CumulativeCost, usdForUsage } from './cost.js';
export { EventChannel } from './event-channel.js';
export { JsonRpcError, JsonRpcPeer, RPC_INTERNAL_ERROR, RPC_INVALID_PARAMS, RPC_METHOD_NOT_FOUND } from './json-rpc.js';
export { binaryMissing, childEnv, planLaunch, postureEnv, postureTarget } from './launch.js';
export { binaryEnvVar, resolveBinary } from './binary.js';
export { classifyAcpKind, classifyToolName, gateToolAsk } from './posture-gate.js';
export { clearProbeCache, extractVersion, probeCli } from './probe.js';
export { groupAlive, livingGroupMembers, terminateGroup } from './process-group.js';
export { handshake } from './startup.js';
export { DEFAULT_TUNING, formatSeconds, readTuning } from './tuning.js';
