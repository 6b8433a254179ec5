/**
 * Text that counts the characters read from it, for scans whose time is their reads: an index or
 * charCodeAt reads one, slice(a, b) b - a, indexOf from `from` up to what it finds (or the end),
 * startsWith its argument, and anything else (a regex over it, a conversion) all of it. A read past
 * `budget` throws: a scan that went quadratic over a megabyte fails at once instead of running
 * for hours. What a machine's load changes is the time of a read, never their number.
 */
export interface CountedText {
  /** The text, as a string to the scans that read it (a Proxy of a String object). */
  text: string;
  reads(): number;
}

export class ReadBudgetExceeded extends Error {
  override name = 'ReadBudgetExceeded';
}

export function countedText(text: string, budget = Number.POSITIVE_INFINITY): CountedText {
  const n = text.length;
  let reads = 0;
  const read = (count: number) => {
    reads += Number.isFinite(count) ? Math.max(0, count) : n;
    if (reads > budget) throw new ReadBudgetExceeded(`${reads} reads of ${n} characters`);
  };
  const at = (i: number | undefined, fallback: number) => {
    const v = i === undefined ? fallback : Math.trunc(i);
    return v < 0 ? Math.max(0, n + v) : Math.min(v, n);
  };
  const costs: Record<string, (args: unknown[], result: unknown) => number> = {
    charAt: () => 1,
    charCodeAt: () => 1,
    codePointAt: () => 1,
    at: () => 1,
    slice: ([a, b]) => at(b as number | undefined, n) - at(a as number | undefined, 0),
    substring: ([a, b]) =>
      Math.abs(at(b as number | undefined, n) - at(a as number | undefined, 0)),
    startsWith: ([s]) => String(s).length,
    endsWith: ([s]) => String(s).length,
    indexOf: ([s, from], found) => {
      const start = at(from as number | undefined, 0);
      return (found === -1 ? n : (found as number) + String(s).length) - start;
    },
    lastIndexOf: ([s, from], found) => {
      const start = at(from as number | undefined, n);
      return start - (found === -1 ? 0 : (found as number)) + String(s).length;
    },
  };
  const proxy = new Proxy(Object(text) as object, {
    get(target, key) {
      if (typeof key === 'string' && (key.charCodeAt(0) - 48) >>> 0 < 10) {
        read(1);
        return text[Number(key)];
      }
      if (key === 'length') return n;
      const method = (String.prototype as unknown as Record<PropertyKey, unknown>)[key];
      if (typeof method !== 'function') return Reflect.get(target, key);
      const cost = typeof key === 'string' && Object.hasOwn(costs, key) ? costs[key] : undefined;
      return (...args: unknown[]) => {
        const result = (method as (...a: unknown[]) => unknown).apply(text, args);
        read(cost ? cost(args, result) : n);
        return result;
      };
    },
  });
  return { text: proxy as unknown as string, reads: () => reads };
}
