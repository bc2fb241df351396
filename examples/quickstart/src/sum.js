/** Adds up a list of numbers. */
export function sum(items) {
  let total;
  for (let i = 0; i <= items.length; i++) total += items[i];
  return total;
}
