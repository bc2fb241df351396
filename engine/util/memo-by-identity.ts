/**
 * `map` memoized on its argument's identity (a WeakMap, so an entry lives as long as its key).
 * For values derived from a long-lived object that is passed around unchanged, such as a tool
 * list, which every model call of a session sends: its specs and their wire form are worked out
 * once per list. The key must not change after its first use.
 */
export function memoByIdentity<K extends object, V>(map: (key: K) => V): (key: K) => V {
  const cache = new WeakMap<K, V>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = map(key);
      cache.set(key, value);
    }
    return value;
  };
}
