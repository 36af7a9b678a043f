import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shapeOf } from '../../contracts/lib/record.js';
import { coverageIndex, renderCoverage } from '../../contracts/reporter/coverage.js';
import { renderJunit } from '../../contracts/reporter/junit.js';
import type { ScenarioResult } from '../../contracts/reporter/scenarioResult.js';
import { junitProblems } from '../testing/junitSchema.js';
import { sourceEntry } from '../testing/sourceBuild.js';
import { execFileTracked } from '../testing/spawnTracked.js';
import { diffShapes, driftBetween, renderDrift } from './drift.js';
import { probe } from './probe.js';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) await new Promise((done) => s.close(done));
});

/** A TCP server on 127.0.0.1 port 0 doing `onSocket` with each connection. */
async function tcp(onSocket: (s: Socket) => void): Promise<number> {
  const server = createServer((s) => {
    sockets.push(s);
    onSocket(s);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as { port: number }).port;
}

describe('coverage index', () => {
  it('lists every declared status per operation, marks the exercised ones, and totals them', () => {
    const index = coverageIndex([
      'getDeviceBinding 200',
      'getDeviceBinding 404',
      'getDeviceBinding 404',
      'x 200',
    ]);
    const binding = index.operations.find((o) => o.operation === 'getDeviceBinding')!;
    // 400: the transport answer every operation declares (a malformed header, issue 20).
    expect(binding.statuses.map((s) => s.status)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '422',
      '429',
      '431',
    ]);
    expect(binding.statuses.filter((s) => s.exercised).map((s) => s.status)).toEqual(['200', '404']);
    expect(binding.exercised).toBe(2);
    expect(index.exercised).toBe(2);
    expect(index.declared).toBe(index.operations.reduce((n, o) => n + o.declared, 0));
    expect(index.percent).toBe(Math.round((2 / index.declared) * 1000) / 10);
    const md = renderCoverage(index).join('\n');
    expect(md).toMatch(/getDeviceBinding +200 ✓ 400 ✗ 401 ✗ 403 ✗ 404 ✓ 422 ✗ 429 ✗ 431 ✗ {2}\(2\/8\)/);
    expect(md).toContain(`2/${index.declared} declared responses exercised`);
  });
});

describe('JUnit from the reporter data', () => {
  const results: ScenarioResult[] = [
    { file: 'a.test.ts', name: 'a > ok <&"x">', tags: ['live-safe'], state: 'passed', durationMs: 12 },
    {
      file: 'a.test.ts',
      name: 'a > down',
      tags: ['live-safe'],
      state: 'failed',
      failureType: 'TargetUnavailable',
      reason: 'target unreachable: http://127.0.0.1:1: connect ECONNREFUSED',
      durationMs: 0,
    },
    {
      file: 'b.test.ts',
      name: 'b > skip',
      tags: ['arranged'],
      state: 'skipped',
      reason: 'needs <control>',
      durationMs: 0,
    },
  ];
  it('is well-formed XML with failures, skip reasons and coverage properties', () => {
    const xml = renderJunit(results, 'url (http://127.0.0.1:1)', coverageIndex(['getPartnerToken 200']));
    expect(junitProblems(xml)).toEqual([]);
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="partner-sim contract suite" tests="3" failures="1" errors="0" time="0.012">/,
    );
    expect(xml).toContain(
      '<testsuite name="b.test.ts" tests="1" failures="0" errors="0" time="0.000" skipped="1">',
    );
    expect(xml).toContain('name="a &gt; ok &lt;&amp;&quot;x&quot;&gt;"');
    expect(xml).toContain(
      '<failure message="failed: target unreachable: http://127.0.0.1:1: connect ECONNREFUSED" type="TargetUnavailable">',
    );
    expect(xml).toContain('<skipped message="needs &lt;control&gt;"/>');
    expect(xml).toMatch(
      /<property name="coverage.getPartnerToken" value="200 ✓ 400 ✗ 401 ✗ 413 ✗ 415 ✗ 422 ✗ 429 ✗ 431 ✗ {2}\(1\/8\)"\/>/,
    );
    expect(xml).toContain('<property name="target" value="url (http://127.0.0.1:1)"/>');
  });

  it('stays valid with terminal colours, control characters, line breaks and pending scenarios', () => {
    const reason = '\u001b[31mexpected 200\u001b[39m\u0000 got <500>\n  at "step" & more\ud800';
    const xml = renderJunit(
      [
        { file: 'c.test.ts', name: 'c > colours\u0007', tags: [], state: 'failed', reason, durationMs: 1500 },
        { file: 'c.test.ts', name: 'c > later', tags: [], state: 'pending', durationMs: 0 },
      ],
      'sim',
      coverageIndex([]),
    );
    expect(junitProblems(xml)).toEqual([]);
    expect(xml).toContain('<failure message="failed: [31mexpected 200[39m got &lt;500&gt;" type="failure">');
    expect(xml).toContain('[31mexpected 200[39m got &lt;500&gt;\n  at "step" &amp; more</failure>');
    expect(xml).toContain('<skipped message="skipped"/>');
    expect(xml).toContain('tests="2" failures="1" errors="0" time="1.500" skipped="1"');
  });

  it('the schema check finds what a CI parser rejects', () => {
    const doc = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
    const suite = (attrs: string, inner = '') =>
      doc(
        `<testsuites><testsuite name="s" tests="1" failures="0" errors="0"${attrs}>${inner}</testsuite></testsuites>`,
      );
    expect(junitProblems(suite('', '<testcase name="t"/>'))).toEqual([]);
    expect(junitProblems(suite('', '<testcase name="a & b"/>'))).toContain('bare & in "a & b"');
    expect(junitProblems(suite('', '<testcase name="\u001b[31m"/>'))).toContain(
      'holds characters XML 1.0 does not allow',
    );
    expect(junitProblems(suite('', '<testcase classname="x"/>'))[0]).toMatch(
      /required attribute name missing/,
    );
    expect(junitProblems(suite(' time="1.5s"', '<testcase name="t"/>'))[0]).toMatch(/not a SUREFIRE_TIME/);
    expect(junitProblems(suite('', '<testcase name="t"/><testcase name="u"/>'))).toContain(
      'testsuite s: tests="1" but 2 counted',
    );
    expect(junitProblems(suite('', '<testcase name="t"><flaky/></testcase>'))[0]).toMatch(
      /<flaky> not allowed/,
    );
    expect(junitProblems(doc('<testsuites skipped="0"></testsuites>'))).toContain(
      'testsuites: attribute skipped is not allowed',
    );
    expect(
      junitProblems(doc('<testsuites><testsuite name="s" tests="0" failures="0" errors="0">')),
    ).toContain('<testsuite> is never closed');
  });
});

describe('response shapes and drift', () => {
  const json = { 'content-type': 'application/json' };
  const shape = (status: number, body: unknown) =>
    shapeOf('getTranscription', { status, headers: json, text: JSON.stringify(body), body });
  it('keeps paths and types, never values', () => {
    const s = shape(200, { id: 't1', data: { results: [{ start: 1.5, text: 'secret words' }] }, n: 3 });
    expect(s.fields).toEqual({
      '/id': 'string',
      '/data': 'object',
      '/data/results': 'array',
      '/data/results[]': 'object',
      '/data/results[]/start': 'number',
      '/data/results[]/text': 'string',
      '/n': 'integer',
    });
    expect(JSON.stringify(s)).not.toContain('secret words');
    expect(shapeOf('x', { status: 404, headers: {}, text: '' }).form).toBe('empty');
  });
  it('reports status, error form, missing and extra fields and types', () => {
    expect(diffShapes(shape(404, { detail: 'X' }), shape(200, {}), 's')[0]).toMatchObject({
      kind: 'status',
      main: '404',
      compare: '200',
    });
    const form = diffShapes(
      shape(401, { detail: 'X', message: 'm' }),
      shape(401, { code: 1, message: 'm' }),
      's',
    );
    expect(form).toEqual([
      expect.objectContaining({ kind: 'error form', main: '{detail,message}', compare: '{code,message}' }),
    ]);
    const body = diffShapes(shape(200, { a: 1, b: 'x' }), shape(200, { a: '1', c: true }), 's');
    expect(body.map((d) => `${d.kind} ${d.field ?? ''} ${d.main}/${d.compare}`)).toEqual([
      'body form  {a,b}/{a,c}',
      'type /a integer/string',
      'only in main /b string/-',
      'only in compare /c -/boolean',
    ]);
  });
  it('pairs steps per scenario, dedupes, and renders a table', () => {
    const run = (target: string, s: ReturnType<typeof shape>[]) => ({
      target,
      results: [
        { file: 'f', name: 'one', tags: [], state: 'passed' as const, durationMs: 0, shapes: s },
        { file: 'f', name: 'two', tags: [], state: 'passed' as const, durationMs: 0, shapes: s },
      ],
    });
    const report = driftBetween(
      run('sim', [shape(200, { a: 1 }), shape(404, { detail: 'x' })]),
      run('url', [shape(200, { a: 1 }), shape(404, { code: 4, message: 'x' })]),
    );
    expect(report.compared).toEqual({ getTranscription: 4 });
    expect(report.drift).toHaveLength(1);
    const md = renderDrift(report);
    expect(md).toContain('| getTranscription | 404 | error form |  | {detail} | {code,message} |');
    expect(renderDrift(driftBetween(run('a', [shape(200, {})]), run('b', [shape(200, {})])))).toContain(
      'No drift',
    );
  });
});

describe('reachability probe', () => {
  it('names a refused connection, a TLS failure and a silent target', async () => {
    const closed = await tcp(() => {});
    await new Promise((done) => servers.pop()!.close(done));
    expect(await probe(`http://127.0.0.1:${closed}`, 2000)).toMatch(/ECONNREFUSED 127\.0\.0\.1/);
    const plain = await tcp((s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'));
    expect(await probe(`http://127.0.0.1:${plain}`, 2000)).toBeUndefined();
    expect(await probe(`https://127.0.0.1:${plain}`, 2000)).toBe('TLS error ERR_SSL_WRONG_VERSION_NUMBER');
    const silent = await tcp(() => {});
    expect(await probe(`http://127.0.0.1:${silent}`, 200)).toBe('no answer within 200 ms');
  });

  // fetch's first use loads and compiles undici (~70 ms of CPU in the CLI process of every
  // `partner-sim contract` run, issue 33); the probe is one request, Node's http does it.
  // Node 24's own node:http loads undici already: the probe is held to what that loads.
  it('asks without loading fetch', async () => {
    const plain = await tcp((s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'));
    const compiled = join(dirname(await sourceEntry('cli')), 'contract', 'probe.js');
    const undici = 'process.moduleLoadList.some((m) => m.includes("undici"))';
    const script = `const { probe } = await import(${JSON.stringify(compiled)});
const reason = await probe('http://127.0.0.1:${plain}', 2000);
console.log(JSON.stringify({ reason, undici: ${undici} }));`;
    const bare = `await import('node:http'); console.log(JSON.stringify({ undici: ${undici} }));`;
    const run = async (code: string) =>
      JSON.parse((await execFileTracked(process.execPath, ['--input-type=module', '-e', code])).stdout) as {
        undici: boolean;
      };
    const [probed, http] = await Promise.all([run(script), run(bare)]);
    expect(probed).toEqual({ undici: http.undici });
  }, 60_000);
});
