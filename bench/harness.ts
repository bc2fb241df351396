/**
 * Shared benchmark helpers: interleaved repetitions of neo and its baseline, medians, and the
 * one-line report format of CONVENTIONS.md.
 */
export interface Figure {
  name: string;
  neo: number;
  baseline: number;
  unit: string;
  /** Lower is better (time, memory); false for throughput. */
  lowerIsBetter?: boolean;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Runs neo and baseline alternately `reps` times; returns both medians (ms). */
export async function interleave(
  reps: number,
  neo: () => Promise<number> | number,
  baseline: () => Promise<number> | number,
): Promise<{ neo: number; baseline: number }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < reps; i++) {
    if (i % 2 === 0) {
      a.push(await neo());
      b.push(await baseline());
    } else {
      b.push(await baseline());
      a.push(await neo());
    }
  }
  return { neo: median(a), baseline: median(b) };
}

export function ratio(figure: Figure): number {
  return figure.lowerIsBetter === false ? figure.baseline / figure.neo : figure.neo / figure.baseline;
}

/** `<figure>: neo <v> <unit> | baseline <v> <unit> | ratio <x>` */
export function report(figure: Figure): string {
  const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2));
  const line = `${figure.name}: neo ${fmt(figure.neo)} ${figure.unit} | baseline ${fmt(figure.baseline)} ${figure.unit} | ratio ${ratio(figure).toFixed(2)}`;
  console.log(line);
  return line;
}

/** Parses `--key=value` arguments into numbers with defaults. */
export function numberArgs<T extends Record<string, number>>(defaults: T): T {
  const out: Record<string, number> = { ...defaults };
  for (const arg of process.argv.slice(2)) {
    const match = /^--([a-zA-Z]+)=(\d+(?:\.\d+)?)$/.exec(arg);
    if (match && match[1]! in out) out[match[1]!] = Number(match[2]);
  }
  return out as T;
}
