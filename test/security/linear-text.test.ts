import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  endsWithAbbreviation,
  mergeMemories,
  withoutTrailingPunctuation,
} from '../../src/memory/merge.js';
import { trimEndChar } from '../../src/platform/linear-text.js';
import { relatedSectionStart } from '../../src/platform/related-section.js';
import { documentOf } from '../../src/search/document.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import {
  bodyTags,
  firstHeading,
  wikilinks,
  withoutCode,
} from '../../src/transfer/sources/markdown.js';
import { presentedToken } from '../../src/transport/auth.js';
import { withoutComment } from '../../src/transport/tokens.js';
import { countedText, ReadBudgetExceeded } from '../text-reads.js';

// Each scan replaced a backtracking regex; the regex stays here as the oracle. On short text
// (where the regex is fast) the scan must answer exactly as it did; on 64 KB of the worst input
// for either, it must read each character a few times at most (counted: test/text-reads.ts),
// where the regex read it once for every position it started from. The regexes left in src are
// held to linear time by test/security/regex-linear.test.ts.

const OLD = {
  related: /(?:^|\r?\n)## Related[ \t]*(?:\r?\n[ \t]*- \[\[[^\n]*\]\][ \t]*)*\s*$/,
  relatedLinks: /(?:^|\r?\n)## Related[ \t]*(?:\r?\n[ \t]*- \[\[[^\n]*\]\][ \t]*)+\s*$/,
  heading: /^#[ \t]+(.+?)[ \t#]*$/m,
  fence: /^(```|~~~)[^\n]*\n[\s\S]*?(^\1[^\n]*$|(?![\s\S]))/gm,
  wikilink: /!?\[\[([^\]\n]+?)\]\]/g,
  bearer: /^bearer\s+(.+)$/i,
  comment: /#.*$/,
  slashes: /\/+$/,
  punctuation: /[\s\p{P}]+$/u,
};

/** Text made of the pieces a pattern turns on, so the oracle's edge cases come up often. */
function textOf(pieces: string[], maxLength = 24): fc.Arbitrary<string> {
  return fc
    .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 2 })), { maxLength })
    .map((parts) => parts.join(''));
}

const LINES = ['\n', '\r', '\r\n', '\u2028', '\u2029', ' ', '\t', '\u00a0', 'a', 'x y'];
const RUNS = { numRuns: 2000, interruptAfterTimeLimit: 3000 };

/**
 * The size of the hostile texts: what is counted is reads a character, the same at any size, and
 * a scan gone quadratic reads 64 KB once for each of 64 K places (the regexes took seconds over
 * 40 KB). Larger only makes the counting (a Proxy) slower.
 */
const SIZE = 1 << 16;
const WORST = [' ', '[', '#', '\n', '\t', ']', '/', '`', '!'].map((c) => c.repeat(SIZE));

/** Reads of each character a linear scan may make: the scans here make 1 to 8. */
const READS_PER_CHARACTER = 16;

/**
 * Runs `f` over each input, counting what it reads of it: at most READS_PER_CHARACTER a character
 * (a scan gone quadratic reads the text once for each place in it, and is stopped there).
 */
function linearOver(inputs: string[], f: (text: string) => unknown): void {
  for (const input of inputs) {
    const counted = countedText(input, READS_PER_CHARACTER * input.length);
    const shown = `${JSON.stringify(input.slice(0, 24))}... (${input.length} characters)`;
    try {
      f(counted.text);
    } catch (error) {
      if (error instanceof ReadBudgetExceeded) assert.fail(`${error.message} over ${shown}`);
      throw error;
    }
    assert.ok(counted.reads() <= READS_PER_CHARACTER * input.length, shown);
  }
}

describe('the links section at a note body end (search/document.ts, markdown import)', () => {
  const pieces = ['## Related', '- [[', ']]', ']', '[[a]]', '- [[a]]', ...LINES];
  it('starts where the regex matched, with zero links or at least one', () => {
    fc.assert(
      fc.property(textOf(pieces), (text) => {
        // The body's length where the regex found no section.
        const none = text.length;
        assert.equal(relatedSectionStart(text), OLD.related.exec(text)?.index ?? none);
        assert.equal(relatedSectionStart(text, 1), OLD.relatedLinks.exec(text)?.index ?? none);
      }),
      RUNS,
    );
  });
  it('is found reading 64 KB of hostile text a few times at most', () => {
    // The touch_memory stall: the regex took 0.8 s over 49 KB of it.
    const attack = `t\n## Related\n- [[a]]${' '.repeat(SIZE)}x`;
    const links = `t\n## Related${'\n- [[a]]'.repeat(SIZE / 8)}`;
    const open = `t\n## Related${'\n- [['.repeat(SIZE / 5)}`;
    const inputs = [...WORST, attack, links, open];
    linearOver(inputs, (text) => relatedSectionStart(text));
    linearOver(inputs, (text) => relatedSectionStart(text, 1));
    const record = { content: 't', meta: { tags: [] } as never, entities: [] };
    linearOver(inputs, (body) => documentOf(record, { title: 't', tags: [], body }));
    assert.equal(relatedSectionStart(links), 1);
  });
});

describe('the first heading (markdown import title)', () => {
  it('is the regex capture', () => {
    const pieces = ['#', '# ', '#\t', '##', ...LINES];
    fc.assert(
      fc.property(textOf(pieces), (text) => {
        assert.equal(firstHeading(text), OLD.heading.exec(text)?.[1]);
      }),
      RUNS,
    );
  });
  it('is found reading 64 KB of hostile text a few times at most', () => {
    // The regex took 2.5 s over 40 KB of the first: over 1 MB, quadratic, it would take minutes.
    linearOver([...WORST, `# ${' #'.repeat(SIZE / 2)}x`, `# ${'\t'.repeat(SIZE)}\n`], firstHeading);
  });
});

describe('code removed before links and tags are read (markdown import)', () => {
  it('removes what the regex removed', () => {
    const pieces = ['```', '~~~', '``', '`', '```js', ...LINES];
    fc.assert(
      fc.property(textOf(pieces, 30), (text) => {
        const inline = (s: string) => s.replace(/`[^`\n]*`/g, '');
        assert.equal(withoutCode(text), inline(text.replace(OLD.fence, '')));
      }),
      RUNS,
    );
  });
  it('reads 64 KB of hostile text a few times at most', () => {
    const fences = '```\n'.repeat(SIZE / 4);
    const unclosed = '\n```'.repeat(SIZE / 4);
    const mixed = '```\n~~~\r'.repeat(SIZE / 8);
    // The regex took 0.3 s over 40 KB of this (no newline for an opening to end at).
    const noNewline = '\r```'.repeat(SIZE / 4);
    linearOver([...WORST, fences, unclosed, mixed, noNewline], withoutCode);
  });
});

describe('wikilinks and tags in a body (markdown import)', () => {
  it('finds the captures of the regex', () => {
    const pieces = ['[[', ']]', '[', ']', '![[', '|', '#', 'a', '\n'];
    fc.assert(
      fc.property(textOf(pieces, 30), (text) => {
        const old = [...text.matchAll(OLD.wikilink)].map((m) => m[1]);
        assert.deepEqual(wikilinks(text), old);
      }),
      RUNS,
    );
  });
  it('are found reading 64 KB of hostile text a few times at most', () => {
    // The regex took 0.5 s over 40 KB of `[[` repeated.
    linearOver(
      [...WORST, '[['.repeat(SIZE / 2), `${'[[a'.repeat(SIZE / 3)}]`, '#a/'.repeat(SIZE / 3)],
      (t) => [wikilinks(t), bodyTags(t)],
    );
  });
});

describe('the Authorization header', () => {
  it('gives the token the regex gave', () => {
    const pieces = ['bearer', 'Bearer', 'BEARER', 'beare', 'tok', ...LINES];
    fc.assert(
      fc.property(textOf(pieces), (header) => {
        const value = header.trim();
        const bearer = OLD.bearer.exec(value);
        const old = bearer ? (bearer[1] as string).trim() : value;
        assert.equal(presentedToken(header), old === '' ? undefined : old);
      }),
      RUNS,
    );
  });
  it('is read from 64 KB of hostile text reading it a few times at most', () => {
    // The regex took 0.9 s over 40 KB of the first.
    const attacks = [`bearer${' '.repeat(SIZE)}x\nx`, `Bearer ${'\t '.repeat(SIZE / 2)}x`];
    linearOver([...WORST, ...attacks], (t) => presentedToken(t));
  });
});

describe('the simple trims', () => {
  it('answer as their regexes did', () => {
    fc.assert(
      fc.property(textOf(['#', '/', '//', '.', '!', '…', '\u{10100}', '\ud800', ...LINES]), (t) => {
        assert.equal(withoutComment(t), t.replace(OLD.comment, ''));
        assert.equal(trimEndChar(t, '/'), t.replace(OLD.slashes, ''));
        assert.equal(withoutTrailingPunctuation(t), t.replace(OLD.punctuation, ''));
      }),
      RUNS,
    );
  });
  it('read 64 KB of hostile text a few times at most', () => {
    // Over 40 KB of these the regexes took 0.8 s, 0.9 s and 1.4 s.
    const attacks = [
      ...WORST,
      `${'/'.repeat(SIZE)}x`,
      `${'#'.repeat(SIZE)}\r`,
      `${'.'.repeat(SIZE)}x`,
    ];
    linearOver(attacks, (t) => [
      withoutComment(t),
      trimEndChar(t, '/'),
      withoutTrailingPunctuation(t),
    ]);
  });
});

describe('an abbreviation at the end of a piece of a sentence (merge)', () => {
  const ABBREVIATION_END = /(?:^|\s)\p{Lu}\p{Ll}{0,3}\.\s*$/u;
  it('is found as the regex found it, looking only at the end', () => {
    const pieces = ['A', 'b', 'Dr', '.', ' ', '\n', '\u{1D400}', '\u{1D41A}', '\ud800', 'é', 'x'];
    fc.assert(
      fc.property(textOf(pieces), (t) => {
        assert.equal(endsWithAbbreviation(t), ABBREVIATION_END.test(t));
      }),
      RUNS,
    );
  });
  it('keeps a merge of runs of initials linear: the glued piece is read at its end only', () => {
    // These took 2.7 s and 1.8 s: each piece of a run of initials is glued to the next, and the
    // regex read the whole glued piece each time. The scan reads what follows its last letters.
    for (const content of ['A. '.repeat(16_000), 'Dr. '.repeat(12_000)]) {
      const glued = countedText(content);
      assert.equal(endsWithAbbreviation(glued.text), true);
      assert.ok(glued.reads() <= 16, `${glued.reads()} reads of ${content.length} characters`);
      const members = ['a', 'b'].map((id, i) => newMemoryRecord(id, `${content}${id}`, i));
      const plan = mergeMemories(members);
      assert.ok(plan.content.startsWith(content.slice(0, 40)), plan.content.slice(0, 80));
    }
  });
});
