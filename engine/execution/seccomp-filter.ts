/**
 * The seccomp filter a confined process with the network gets (bwrap's `--seccomp`): it cannot
 * create a unix socket with `socket()`.
 *
 * Why: with the network on, the sandbox shares the host's network namespace, and with it the
 * host's *abstract* unix sockets — names with no file behind them, so hiding /run and /tmp does
 * not hide them. What listens there is no data source but a door: an X server (keystrokes into
 * the user's terminal; `SI:localuser` access needs no cookie), a container runtime's shim
 * (CVE-2020-15257), D-Bus on some hosts. Seccomp cannot read the address a `connect()` names,
 * so the socket itself is refused. `socketpair()` stays allowed (the pipes between a tool and
 * its children: libuv's, Python's), as does every socket family but AF_UNIX. Without the
 * network the sandbox has its own namespace, whose abstract names are its own: no filter, and
 * a project's tests that listen on a unix socket work there.
 *
 * Also refused: `io_uring_setup` (an io_uring creates sockets without the `socket()` syscall)
 * and every syscall of another ABI (a 32-bit or x32 program would reach `socket` under another
 * number, or through `socketcall`).
 */

const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const RET_K = 0x06; // BPF_RET | BPF_K
const RET_ALLOW = 0x7fff0000; // SECCOMP_RET_ALLOW
const RET_EPERM = 0x00050000 | 1; // SECCOMP_RET_ERRNO | EPERM

/** `struct seccomp_data`: the syscall number, the ABI, then the arguments (64-bit each). */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16; // little-endian: the low half of args[0]

const AF_UNIX = 1;
/** The x32 ABI's syscalls are the x86-64 numbers with this bit set, under the x86-64 audit arch. */
const X32_BIT = 0x40000000;

/** The ABIs neo builds the filter for: `process.arch` → audit arch and syscall numbers. */
const ABIS: Partial<Record<string, { audit: number; socket: number; ioUringSetup: number; x32: boolean }>> = {
  x64: { audit: 0xc000003e, socket: 41, ioUringSetup: 425, x32: true },
  arm64: { audit: 0xc00000b7, socket: 198, ioUringSetup: 425, x32: false },
};

/** `struct sock_filter`: 16-bit code, two 8-bit forward jump offsets, a 32-bit operand. */
type Instruction = [code: number, jt: number, jf: number, k: number];

/**
 * The compiled filter for an ABI (default: this machine's), or undefined where neo has none —
 * the sandbox then refuses a networked process rather than run it unfiltered (sandbox.ts).
 *
 *     ld arch;  jeq native ? next : DENY
 *     ld nr;    jeq io_uring_setup (and x32's) ? DENY
 *               jeq socket (and x32's) ? ARG
 *     ret ALLOW
 *     ARG: ld args[0];  jeq AF_UNIX ? DENY : ALLOW'
 *     DENY: ret EPERM;  ALLOW': ret ALLOW
 */
export function unixSocketFilter(arch: string = process.arch): Buffer | undefined {
  const abi = ABIS[arch];
  if (abi === undefined) return undefined;
  const withX32 = (nr: number) => (abi.x32 ? [nr, nr | X32_BIT] : [nr]);
  const denied = withX32(abi.ioUringSetup);
  const sockets = withX32(abi.socket);
  // Where each part starts; classic BPF jumps only forward, by an offset from the next instruction.
  const numbersAt = 2;
  const allowAt = numbersAt + 1 + denied.length + sockets.length;
  const argAt = allowAt + 1;
  const denyAt = argAt + 2;
  const to = (from: number, target: number) => target - from - 1;
  const program: Instruction[] = [
    [LD_W_ABS, 0, 0, ARCH],
    [JEQ_K, 0, to(1, denyAt), abi.audit],
    [LD_W_ABS, 0, 0, NR],
    ...denied.map((nr, i): Instruction => [JEQ_K, to(numbersAt + 1 + i, denyAt), 0, nr]),
    ...sockets.map((nr, i): Instruction => [JEQ_K, to(numbersAt + 1 + denied.length + i, argAt), 0, nr]),
    [RET_K, 0, 0, RET_ALLOW],
    [LD_W_ABS, 0, 0, ARG0_LOW],
    [JEQ_K, 0, 1, AF_UNIX],
    [RET_K, 0, 0, RET_EPERM],
    [RET_K, 0, 0, RET_ALLOW],
  ];
  const out = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}
