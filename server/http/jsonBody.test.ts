import express, { type RequestHandler } from 'express';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summarizeBody } from '../control/entryBounds.js';
import { jsonLimitIssues, MAX_BODY_DEPTH } from '../spec/jsonLimits.js';
import { prunedTooDeep } from '../spec/jsonPrune.js';
import { parsedBody } from '../testing/parsedBody.js';
import { jsonBody } from './jsonBody.js';
import { jsonDecodeIssue } from './jsonSyntax.js';

// Differential: the simulator's JSON body parser against express.json, the one it replaces,
// on bodies nested around and far beyond the depth limit. Whatever either yields must answer
// the same: the error (status, type, message, body, and the issue made of it), else the
// request validators' depth and number issues, the journal's summary and, where those find
// nothing, the parsed body itself (key order, duplicates, `__proto__` as an own key).

const nest = (depth: number, inner = '1', key = 'a'): string =>
  `${`{"${key}":`.repeat(depth)}${inner}${'}'.repeat(depth)}`;
const arrays = (depth: number, inner = '1'): string => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
const L = MAX_BODY_DEPTH;

const corpus: [string, string][] = [
  ...[1, L - 2, L - 1, L, L + 1, L + 2, 2 * L, 5000, 100_000].flatMap((d): [string, string][] => [
    [`object ${d}`, nest(d)],
    [`array ${d}`, arrays(d)],
    [`array ${d} of 1e400`, arrays(d, '1e400')],
    [`object ${d} spaced`, ` \n\t${'{ "a" :\n'.repeat(d)} {} ${'\r}'.repeat(d)}\n `],
  ]),
  ['1e400 before, deep after', `{"x":1e400,"d":${nest(L + 5)}}`],
  ['deep before, 1e400 after', `{"d":${nest(L + 5)},"x":1e400,"y":[1e400]}`],
  ['1e400 inside the emptied part', `{"d":${nest(L + 5, '1e400')}}`],
  ['1e400 at the limit', `{"d":${arrays(L - 1, '1e400')}}`],
  ['duplicate keys, deep first', `{"a":${nest(L + 3)},"a":1}`],
  ['duplicate keys, deep last', `{"a":1,"a":${nest(L + 3)}}`],
  ['duplicate keys, both deep', `{"a":${nest(L + 3)},"b":2,"a":${arrays(L + 3)}}`],
  ['integer-like keys', `{"b":1,"2":${nest(L + 1)},"1":${arrays(L + 1)},"a":1e400,"0":{"x":1}}`],
  ['__proto__ deep', `{"__proto__":${nest(L + 2)}}`],
  ['__proto__ shallow', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}'],
  ['brackets in keys and strings', `{"k\\"[{":${nest(L + 2, '"]}\\\\"', '[{\\"')},"v":"]]]}}}\\\\"}`],
  ['escapes and unicode inside', `{"d":${nest(L + 2, '"\\u00e9\\n\\/\\ud800 é 😀"', 'k\\\\')}}`],
  ['more than ten issues', `[${Array.from({ length: 15 }, () => nest(L + 1)).join(',')}]`],
  ['wide and deep', `{${Array.from({ length: 50 }, (_, i) => `"k${i}":${i % 7 ? i : nest(L)}`).join(',')}}`],
  ['numbers inside', `{"d":${arrays(L + 2, '-0,1.5e+3,0.25,-12E-2,true,false,null')}}`],
  ['invalid: trailing comma inside', `{"d":${arrays(L + 2, '1,')}}`],
  ['invalid: leading zero inside', `{"d":${arrays(L + 2, '01')}}`],
  ['invalid: bad literal inside', nest(L + 2, 'tru')],
  ['invalid: bad escape inside', nest(L + 2, '"\\x"')],
  ['invalid: control character inside', nest(L + 2, '"a\u0001b"')],
  ['invalid: unterminated string inside', nest(L + 2, '"abc')],
  ['invalid: missing colon inside', `${'{"a":'.repeat(L + 2)}{"b" 1}${'}'.repeat(L + 2)}`],
  ['invalid: unclosed inside', `{"d":${'['.repeat(L + 5)}]}`],
  ['invalid: mismatched close inside', `{"d":${'['.repeat(L + 2)}}${']'.repeat(L + 1)}}`],
  ['invalid: after the document', `${nest(L + 2)} x`],
  ['invalid: trailing comma outside', `{"d":${nest(L + 2)},}`],
  ['invalid: before the deep part', `{"x":tru,"d":${nest(L + 2)}}`],
  ['invalid: unclosed outside', `{"d":${nest(L + 2)}`],
  ['invalid: 1e400 typo outside', `{"x":1e,"d":${nest(L + 2)}}`],
  ['empty body', ''],
  ['whitespace only', ' \n '],
  ['string top level', '"abc"'],
  ['number top level', ' 1'],
  ['literal top level', 'true'],
  ['bracket after text', 'x{"a":1}'],
  ['wide', JSON.stringify(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i])))],
];

interface Outcome {
  error?: unknown;
  value?: unknown;
}

async function run(parser: RequestHandler, body: string): Promise<Outcome> {
  const { error, body: value, headers } = await parsedBody(parser, body);
  if (error) {
    const { status, type, message } = error;
    return { error: { status, type, message, body: error.body, issue: jsonDecodeIssue(error) } };
  }
  const issues = jsonLimitIssues(value, 'body');
  const summary = summarizeBody(value, headers);
  if (issues.length > 0) return { value: { issues, summary } };
  const plain = Object.getPrototypeOf(value) === Object.prototype;
  return { value: { issues, summary, plain, json: JSON.stringify(value) } };
}

const old = express.json({ limit: '1mb' });
const now = jsonBody({ limit: '1mb' });

/**
 * Same answer, and a valid body refused as too deep took the cheap path (its too deep parts
 * emptied, not parsed): falling back to the full parse would answer the same, only slowly.
 */
async function expectSame(body: string): Promise<Outcome> {
  const [before, after] = [await run(old, body), await run(now, body)];
  expect(after).toEqual(before);
  const issues = (before.value as { issues?: { type: string }[] } | undefined)?.issues ?? [];
  if (issues.some((i) => i.type === 'too_deep')) expect(prunedTooDeep(body)).toBeDefined();
  return after;
}

describe('jsonBody', () => {
  it.each(corpus)('answers as express.json does: %s', async (_name, body) => {
    await expectSame(body);
  });

  it('refuses a body nested 100,000 deep where the limit is, as too_deep', async () => {
    const { value } = await expectSame(nest(100_000));
    expect((value as { issues: { loc: unknown[]; type: string }[] }).issues).toEqual([
      expect.objectContaining({ type: 'too_deep', loc: ['body', ...Array(L).fill('a')] }),
    ]);
  });

  it('answers as express.json does for bodies one character away from the corpus', async () => {
    const seeds = corpus.map(([, b]) => b).filter((b) => b.length > 0 && b.length < 4000);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...seeds),
        fc.nat(),
        fc.constantFrom('', '[', ']', '{', '}', '"', '\\', ',', ':', '1', ' ', 'e'),
        async (seed, at, insert) => {
          const i = at % seed.length;
          await expectSame(seed.slice(0, i) + insert + seed.slice(i + 1));
        },
      ),
      { seed: 20261127, numRuns: 300 },
    );
  });
});
