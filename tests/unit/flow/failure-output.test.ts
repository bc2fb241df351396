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

  it('a runner that prints its summary last (uvu): the first failure, coloured, above the last lines', () => {
    const passing = Array.from({ length: 30 }, (_, i) => `\u001b[32m✓\u001b[39m case ${i + 1}`);
    const failure = [
      '\u001b[41m\u001b[1m FAIL \u001b[22m\u001b[49m RegExp "RegExps"',
      '    Expected values to be deeply equal:',
      '    ++false',
      '    --true',
      '    at assert (test/index.js:150:2)',
      '    at Object.handler (uvu/run.js:12:3)',
      '    at more (uvu/run.js:13:3)',
    ];
    const summary = ['', '  Total:     44', '  Passed:    43', '  Skipped:   0', '  Duration:  3.64ms'];
    const tail = [...passing.slice(0, 10), ...failure, ...passing.slice(10), ...summary].join('\n');
    const output = failureOutput('failed', { gate: { command: 'npm test', passed: false, exitCode: 1, tail } })!;
    expect(output.lines).toEqual([...failure.slice(0, 6), '…', ...summary]);
    expect(output.lines).toHaveLength(12);
    expect(output.omitted).toBe(10 + 1 + 20);
    expect(failureOutputHeading(output)).toBe(
      'gate `npm test` (exit 1), its first failure and last lines, 11 lines of 42:',
    );
  });

  it('a failure already among the last lines (pytest) keeps the plain tail', () => {
    const tail = [
      ...Array.from({ length: 20 }, (_, i) => `tests/test_${i}.py .`),
      'E   assert -1 == 5',
      'FAILED x',
    ].join('\n');
    const output = failureOutput('failed', { gate: { command: 'pytest', passed: false, exitCode: 1, tail } })!;
    expect(output.firstFailure).toBeUndefined();
    expect(output.lines.at(-2)).toBe('E   assert -1 == 5');
    expect(failureOutputHeading(output)).toBe('gate `pytest` (exit 1), last 12 lines of 22:');
  });
});
