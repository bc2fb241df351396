/**
 * Edit distance where swapping two neighbouring letters counts as one edit (optimal string
 * alignment): `sya` is one typo away from `say`, as a person sees it. Three rows, no more.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      current[j] = best;
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The closest candidate to `input`, or undefined when nothing is close enough to be a typo
 * (distance at most a third of the longer word, minimum 1; case-insensitive).
 */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
  const needle = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(needle, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(1, Math.floor(Math.max(needle.length, best.length) / 3));
  return bestDistance <= limit ? best : undefined;
}
