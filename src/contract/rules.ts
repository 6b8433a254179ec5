/**
 * What a memory's content and free-form JSON (save_memory meta, create_relation metadata) may
 * be. Pure checks returning the message to show, naming the field and the fix; the tools check
 * the raw input with them and the use cases check again, for any other caller.
 */

import { groupDigits } from '../platform/digits.js';

/** Levels of objects and lists, meta itself being the first. */
export const MAX_META_DEPTH = 8;
/** Characters of meta written as JSON. */
export const MAX_META_CHARS = 16_000;

/** White space, control characters and those that draw nothing (zero-width, soft hyphen, BOM). */
const INVISIBLE_ONLY = /^[\s\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]*$/u;

/** Why `content` cannot be saved as it is, or undefined. */
export function contentProblem(content: string): string | undefined {
  if (content.length > 0 && INVISIBLE_ONLY.test(content)) {
    return 'content is only white space or invisible characters (such as zero-width spaces): pass the text to remember';
  }
  return undefined;
}

/**
 * Why a free-form JSON object cannot be kept as it is, or undefined. The walk stops at the
 * depth limit, so an object nested 10,000 levels deep is refused without recursing into it.
 * A `__proto__` key is refused by name: copying the object (zod, a spread) would drop it or
 * turn it into a prototype. Values that are not objects are left to the schema's own error.
 */
export function jsonObjectProblem(value: unknown, field: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const pending: { value: object; path: string; depth: number }[] = [
    { value, path: field, depth: 1 },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > MAX_META_DEPTH) {
      return `${field} is nested deeper than ${MAX_META_DEPTH} levels: flatten it`;
    }
    const isList = Array.isArray(next.value);
    if (!isList && Object.hasOwn(next.value, '__proto__')) {
      return `${next.path} has a key named "__proto__", which cannot be kept: rename it`;
    }
    for (const [key, child] of Object.entries(next.value)) {
      if (typeof child === 'object' && child !== null) {
        const shown = key.length > 40 ? `${key.slice(0, 39)}…` : key;
        const path = isList ? `${next.path}[${key}]` : `${next.path}.${shown}`;
        pending.push({ value: child, path, depth: next.depth + 1 });
      }
    }
  }
  const chars = JSON.stringify(value).length;
  if (chars > MAX_META_CHARS) {
    return `${field} is ${groupDigits(chars)} characters as JSON, over ${groupDigits(MAX_META_CHARS)}: keep it to a few fields, or save long text as the content of a memory`;
  }
  return undefined;
}

/** Levels a stored record may nest: JSON.stringify, which writes it, recurses a level a nesting. */
export const MAX_STORED_DEPTH = 64;

/**
 * Why `value` cannot be stored by every engine, or undefined: a NUL character in any of its
 * strings or keys (PostgreSQL's text refuses it, and its jsonb too), or nesting deeper than
 * MAX_STORED_DEPTH (JSON.parse reads 6,000 levels, JSON.stringify overflows its stack on them).
 * Walked with a stack of its own, so a deep value does not recurse. Worded to follow "the
 * memory", "the record" or a field's name.
 */
export function storableProblem(value: unknown): string | undefined {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop() as [unknown, number];
    if (typeof next === 'string') {
      if (next.includes('\0')) {
        return 'holds a NUL character (U+0000), which PostgreSQL cannot store: remove it from the text';
      }
    } else if (typeof next === 'object' && next !== null) {
      if (depth > MAX_STORED_DEPTH) {
        return `is nested deeper than ${MAX_STORED_DEPTH} levels, more than mnemo writes: flatten it`;
      }
      for (const [key, child] of Object.entries(next)) {
        if (key.includes('\0')) return storableProblem(key);
        pending.push([child, depth + 1]);
      }
    }
  }
  return undefined;
}
