/**
 * Most processes (threads count) a command neo starts may have at once unless it is told
 * otherwise — a flow's command, its gate, an agent CLI of a flow step or of a session started by
 * hand or from the control plane: room for a parallel build or a test runner's workers, far
 * below what a fork flood would take from the machine.
 */
export const DEFAULT_MAX_PROCESSES = 1024;
