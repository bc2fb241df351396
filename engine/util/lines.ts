/** Splits a byte stream into lines, calling `onLine` for each complete, non-blank one. */
export function lineReader(onLine: (line: string) => void): (chunk: Buffer | string) => void {
  let buffer = '';
  return (chunk) => {
    buffer += chunk.toString();
    let index = buffer.indexOf('\n');
    while (index >= 0) {
      const line = buffer.slice(0, index);
      buffer = buffer.slice(index + 1);
      if (line.trim() !== '') onLine(line);
      index = buffer.indexOf('\n');
    }
  };
}
