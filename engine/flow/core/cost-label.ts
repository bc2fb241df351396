/**
 * A cost as people read it: `$0.0035`, `$0.0035 simulated` when a scripted backend reported all
 * of it, `$0.0135 ($0.0035 of it simulated)` when some. One rule for the summary, `neo flow
 * show`, `neo flow list` and a step's evidence.
 */
export function costLabel(usd: number, simulatedUsd = 0): string {
  const money = (value: number) => `$${value.toFixed(4)}`;
  if (simulatedUsd <= 0) return money(usd);
  if (simulatedUsd >= usd - 1e-9) return `${money(usd)} simulated`;
  return `${money(usd)} (${money(simulatedUsd)} of it simulated)`;
}
