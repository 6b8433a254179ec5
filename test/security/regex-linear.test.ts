import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { check } from 'recheck';
import { literalText, nodesUnder, parseSource, type SyntaxNode } from '../source-tree.js';

// Every regular expression in src runs over text a client, a note or a file controls, so each
// must match in linear time: a super-linear one lets one input hold the event loop for seconds.

const SRC = path.resolve(import.meta.dirname, '../../src');

/**
 * Regexes built from something other than a string literal cannot be checked here; each one
 * allowed is listed with the reason its pattern is linear. Keyed `file:line` relative to src.
 */
const DYNAMIC_ALLOWED = new Map<string, string>([]);

interface Found {
  at: string;
  file: string;
  source: string;
  flags: string;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|tsx|mts)$/.test(entry.name)) yield full;
  }
}

/** Every regex literal and RegExp construction in src, by its file and line. */
function regexesInSrc(): { found: Found[]; dynamic: string[] } {
  const found: Found[] = [];
  const dynamic: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const relative = path.relative(SRC, file).split(path.sep).join('/');
    const at = (node: SyntaxNode) => `${relative}:${node.loc?.start.line ?? 0}`;
    for (const node of nodesUnder(parseSource(file))) {
      if (node.type === 'RegExpLiteral') {
        found.push({
          at: at(node),
          file: relative,
          source: node.pattern as string,
          flags: node.flags as string,
        });
        continue;
      }
      const callee = node.callee as SyntaxNode | undefined;
      if (
        (node.type === 'NewExpression' || node.type === 'CallExpression') &&
        callee?.type === 'Identifier' &&
        callee.name === 'RegExp'
      ) {
        const [pattern, flags] = node.arguments as SyntaxNode[];
        const source = literalText(pattern);
        const flagText = flags === undefined ? '' : literalText(flags);
        if (source !== undefined && flagText !== undefined) {
          found.push({ at: at(node), file: relative, source, flags: flagText });
        } else if (!DYNAMIC_ALLOWED.has(at(node))) {
          dynamic.push(at(node));
        }
      }
    }
  }
  return { found, dynamic };
}

describe('every regular expression in src', () => {
  const { found, dynamic } = regexesInSrc();

  it('is found: the walk sees the literals and RegExp calls of src', () => {
    // A walk that found nothing would pass everything.
    assert.ok(found.length > 50, `only ${found.length} regexes found under ${SRC}`);
  });

  it('is built from a literal pattern, or is on the allow-list with a reason', () => {
    assert.deepEqual(dynamic, [], 'a RegExp from a computed pattern cannot be checked for ReDoS');
  });

  it('runs in linear time by recheck', { timeout: 120_000 }, async () => {
    const bad: string[] = [];
    for (const regex of found) {
      const diagnostics = await check(regex.source, regex.flags, { timeout: 10_000 });
      if (diagnostics.status === 'safe') continue;
      // The attack string is left out: it can be megabytes.
      const why =
        diagnostics.status === 'vulnerable'
          ? diagnostics.complexity.summary
          : `unknown (${diagnostics.error.kind})`;
      bad.push(`${regex.at} /${regex.source}/${regex.flags}: ${why}`);
    }
    assert.deepEqual(bad, [], `super-linear regexes:\n${bad.join('\n')}`);
  });
});
