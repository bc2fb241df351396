import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { privateSocketFolders, privateSocketPath } from '../../../engine/util/private-socket.js';

const saved = { TMPDIR: process.env.TMPDIR, NEO_SOCKET_TMPDIR: process.env.NEO_SOCKET_TMPDIR };
afterEach(() => {
  for (const [name, value] of Object.entries(saved))
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
});

describe('where a socket falls back when NEO_HOME is too long', () => {
  const uid = `neo-${process.getuid!()}`;
  const long = `/var/tmp/${'h'.repeat(100)}`;

  it('in NEO_HOME when the path fits', () => {
    expect(privateSocketPath('/home/u/.neo', 'session-daemon')).toBe('/home/u/.neo/session-daemon.sock');
  });

  it('under /tmp whatever TMPDIR says (every sandbox has its own /tmp), and that folder is hidden', () => {
    process.env.TMPDIR = '/var/tmp/elsewhere';
    delete process.env.NEO_SOCKET_TMPDIR;
    expect(privateSocketPath(long, 'session-daemon')).toMatch(
      new RegExp(`^/tmp/${uid}/session-daemon-[0-9a-f]{16}\\.sock$`),
    );
    expect(privateSocketFolders()).toEqual([join('/tmp', uid), join('/var/tmp/elsewhere', uid)]);
  });

  it('under NEO_SOCKET_TMPDIR when set, which is hidden too', () => {
    process.env.NEO_SOCKET_TMPDIR = '/var/tmp/sockets';
    expect(privateSocketPath(long, 'serve')).toMatch(new RegExp(`^/var/tmp/sockets/${uid}/serve-`));
    expect(privateSocketFolders()).toContain(join('/var/tmp/sockets', uid));
  });
});
