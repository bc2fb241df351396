/**
 * Where neo's unix sockets live and who is on their other end. Node exposes no SO_PEERCRED, so
 * the guarantee comes from where a socket lives: a folder owned by this user and closed to
 * everyone else (no group or other bits), reached through no link another user made. Only this
 * user (and root) can create or reach a socket in it, so a server that listens there talks only to
 * this user, and a client that connects there talks only to this user's server. Both sides check
 * before talking: the server the folder it creates, before it listens; the client the folder and
 * that the socket file is a socket this user owns, before it connects.
 */
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { lstat, mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { contentHash } from './content-hash.js';

/** A unix socket path must fit in sun_path (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

/**
 * The temp folder whose `neo-<uid>` folder holds a socket when NEO_HOME's path is too long for
 * one: `/tmp` whatever TMPDIR says, or `NEO_SOCKET_TMPDIR` (tests point it at a folder of their
 * own so they can make it unsafe without touching anyone's real one).
 */
function fallbackRoot(): string {
  const set = process.env.NEO_SOCKET_TMPDIR;
  return set !== undefined && set !== '' ? set : '/tmp';
}

/**
 * `<home>/<name>.sock` (NEO_HOME is private, 0700). A NEO_HOME too long for a socket path falls
 * back to `/tmp/neo-<uid>/<name>-<hash of home>.sock` (see {@link fallbackRoot}), a folder of
 * this user's own: never a predictable name in the shared temp folder that another user could
 * take first. `/tmp`, not TMPDIR: every sandbox gets a private `/tmp` of its own, so a socket
 * there is out of a confined process's sight wherever TMPDIR points (the sandbox also hides the
 * folder by name, see {@link privateSocketFolders}).
 */
export function privateSocketPath(home: string, name: string): string {
  const inHome = join(home, `${name}.sock`);
  if (Buffer.byteLength(inHome) <= MAX_SOCKET_PATH) return inHome;
  return join(fallbackRoot(), uidFolder(), `${name}-${contentHash(home).slice(0, 16)}.sock`);
}

/**
 * Every folder outside NEO_HOME where a neo socket of this user may listen: the fallback (and the
 * default one), and `$TMPDIR/neo-<uid>` where an earlier neo put it. A sandbox hides them all.
 */
export function privateSocketFolders(): string[] {
  return [...new Set([join(fallbackRoot(), uidFolder()), join('/tmp', uidFolder()), join(tmpdir(), uidFolder())])];
}

function uidFolder(): string {
  return `neo-${typeof process.getuid === 'function' ? String(process.getuid()) : 'user'}`;
}

/** The current user, or undefined where there are no unix users (Windows). */
function myUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/**
 * What is wrong with the folder of `socket` (created 0700 first when `create`), or undefined
 * when it is private to this user (or missing: nothing listens there yet).
 */
export async function socketFolderProblem(socket: string, options: { create: boolean }): Promise<string | undefined> {
  const uid = myUid();
  if (uid === undefined) return undefined;
  const dir = dirname(socket);
  if (options.create) await mkdir(dir, { recursive: true, mode: 0o700 });
  const link = await lstat(dir).catch(() => undefined);
  if (link === undefined) return undefined;
  // A link is followed only when this user made it (a NEO_HOME kept on another disk); one another
  // user planted could lead anywhere.
  const info = link.isSymbolicLink() && link.uid === uid ? await stat(dir).catch(() => undefined) : link;
  if (info === undefined) return undefined;
  const problem = info.isSymbolicLink()
    ? `is a symbolic link made by user ${info.uid}, not by you (${uid})`
    : !info.isDirectory()
      ? 'is not a directory'
      : info.uid !== uid
        ? `belongs to user ${info.uid}, not to you (${uid})`
        : (info.mode & 0o077) !== 0
          ? `is open to other users (mode ${(info.mode & 0o777).toString(8)})`
          : undefined;
  return problem === undefined ? undefined : `the socket folder ${dir} ${problem}`;
}

/**
 * What is wrong with a socket a client is about to connect to: its folder (above), then the file
 * itself, a socket this user owns. Undefined when it is safe, or missing (nothing listens yet).
 */
export async function socketProblem(socket: string): Promise<string | undefined> {
  const folder = await socketFolderProblem(socket, { create: false });
  if (folder !== undefined) return folder;
  const uid = myUid();
  if (uid === undefined) return undefined;
  const info = await lstat(socket).catch(() => undefined);
  if (info === undefined) return undefined;
  if (!info.isSocket()) return `${socket} is not a socket`;
  if (info.uid !== uid) return `${socket} belongs to user ${info.uid}, not to you (${uid})`;
  return undefined;
}

/** The hint every refusal carries. */
export function socketHint(socket: string): string {
  return `only you may own and open ${dirname(socket)} (chmod 700, owned by you, not another user's link); remove it if someone else made it`;
}

/** Whether something answers on `path` (a live server), as opposed to a stale socket file. */
export function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
