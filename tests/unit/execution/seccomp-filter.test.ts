import { describe, expect, it } from 'vitest';
import { unixSocketFilter } from '../../../engine/execution/seccomp-filter.js';

/** The program as [code, jt, jf, k] rows, and where each jump lands. */
function decode(program: Buffer) {
  const rows: Array<[number, number, number, number]> = [];
  for (let i = 0; i < program.length; i += 8)
    rows.push([program.readUInt16LE(i), program[i + 2]!, program[i + 3]!, program.readUInt32LE(i + 4)]);
  return rows;
}

describe('the unix-socket seccomp filter', () => {
  it.each([
    ['x64', 0xc000003e, [425, 425 | 0x40000000], [41, 41 | 0x40000000]],
    ['arm64', 0xc00000b7, [425], [198]],
  ])(
    '%s: another ABI and io_uring are refused, socket(AF_UNIX) is refused, the rest allowed',
    (arch, audit, uring, socket) => {
      const rows = decode(unixSocketFilter(arch)!);
      const deny = rows.findIndex(([code, , , k]) => code === 0x06 && k === 0x50001);
      const land = (at: number, offset: number) => at + 1 + offset;
      // ld arch; jeq native, else deny
      expect(rows[0]).toEqual([0x20, 0, 0, 4]);
      expect(rows[1]![3]).toBe(audit);
      expect(land(1, rows[1]![2])).toBe(deny);
      expect(rows[2]).toEqual([0x20, 0, 0, 0]);
      const checks = rows.slice(3, 3 + uring.length + socket.length);
      expect(checks.map((r) => r[3])).toEqual([...uring, ...socket]);
      for (const [i] of uring.entries()) expect(land(3 + i, checks[i]![1])).toBe(deny);
      const arg = rows.findIndex(([code, , , k]) => code === 0x20 && k === 16);
      for (const [i] of socket.entries()) expect(land(3 + uring.length + i, checks[uring.length + i]![1])).toBe(arg);
      // Not a listed call: allowed; args[0] == AF_UNIX: denied, else allowed.
      expect(rows[3 + checks.length]).toEqual([0x06, 0, 0, 0x7fff0000]);
      expect(rows[arg + 1]).toEqual([0x15, 0, 1, 1]);
      expect(land(arg + 1, 0)).toBe(deny);
      expect(rows[land(arg + 1, 1)]).toEqual([0x06, 0, 0, 0x7fff0000]);
    },
  );

  it('has no filter for an architecture it does not know', () => {
    expect(unixSocketFilter('riscv64')).toBeUndefined();
  });
});
