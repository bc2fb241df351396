import { describe, expect, it } from 'vitest';
import { failureOutput, failureOutputHeading } from '../../../engine/flow/core/failure-output.js';

describe('failureOutput: what explains a failed step', () => {
  it("a failed gate's tail, its last 12 lines, a long line cut in the middle", () => {
    const tail = [...Array.from({ length: 20 }, (_, i) => `line ${i + 1}`), 'x'.repeat(1000)].join('\n');
    const output = failureOutput('failed', { gate: { command: 'npm test', passed: false, exitCode: 1, tail } })!;
    expect(output.source).toBe('gate `npm test` (exit 1)');
    expect(output.lines).toHaveLength(12);
    expect(output.lines[0]).toBe('line 10');
    expect(output.lines[11]).toMatch(/^x+ … \(\d+ more characters\) … x+$/);
    expect(output.lines[11]!.length).toBeLessThanOrEqual(300);
    expect(failureOutputHeading(output)).toBe('gate `npm test` (exit 1), last 12 lines of 21:');
  });

  it("a failed command's stderr, else its stdout; nothing for a success, a passed gate or no output", () => {
    expect(failureOutput('failed', { exitCode: 2, stderr: 'bad\n', stdout: 'ok\n' })).toEqual({
      source: 'stderr',
      lines: ['bad'],
      omitted: 0,
    });
    expect(failureOutput('failed', { exitCode: 2, stderr: '', stdout: 'only out\n' })?.source).toBe('stdout');
    expect(failureOutput('succeeded', { exitCode: 0, stderr: 'noise' })).toBeUndefined();
    expect(failureOutput('failed', { gate: { passed: true, tail: 'fine' } })).toBeUndefined();
    expect(failureOutput('failed', { exitCode: 1, stderr: '  \n' })).toBeUndefined();
    expect(failureOutput('failed', undefined)).toBeUndefined();
  });
});
