/**
 * The session daemon's side of util/private-socket.ts: a socket whose folder or file another
 * user could reach or own is refused with `SESSION_DAEMON_UNSAFE_SOCKET`, before any byte is sent.
 */
import { socketFolderProblem, socketHint, socketProblem } from '../../util/private-socket.js';
import { SessionFailure } from '../errors.js';

/** The daemon, before it listens: the folder it creates (0700) is private to this user. */
export async function privateSocketDir(socket: string): Promise<void> {
  refuse(socket, await socketFolderProblem(socket, { create: true }));
}

/** A client, before it connects: the folder is private and the socket is this user's. */
export async function checkDaemonSocket(socket: string): Promise<void> {
  refuse(socket, await socketProblem(socket));
}

function refuse(socket: string, problem: string | undefined): void {
  if (problem === undefined) return;
  throw new SessionFailure(
    'SESSION_DAEMON_UNSAFE_SOCKET',
    `the session daemon's socket is unsafe: ${problem}: neo will not talk through it`,
    { hint: socketHint(socket) },
  );
}
