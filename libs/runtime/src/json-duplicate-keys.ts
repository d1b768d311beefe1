/**
 * The first key that one object of a JSON text names twice, or undefined. JSON.parse keeps the last
 * value where a proxy or a firewall reading the same body may keep the first: such a body means two
 * things. Keys compare as decoded (`"a"` and `"\u0061"` are one key). The text must be valid JSON
 * (parsed already): this walks it once, holding the keys of each open object.
 */
export function firstDuplicateKey(text: string): string | undefined {
  // One frame per open container: the keys of an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectingKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (expectingKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        const keys = open[open.length - 1]!;
        if (keys.has(key)) return key;
        keys.add(key);
        expectingKey = false;
      }
      i = end;
    } else if (c === '{') {
      open.push(new Set());
      expectingKey = true;
    } else if (c === '[') {
      open.push(null);
    } else if (c === '}' || c === ']') {
      open.pop();
      expectingKey = false;
    } else if (c === ',') {
      expectingKey = open[open.length - 1] != null;
    }
  }
  return undefined;
}
