import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Benchmark, fmt, spawnSimulator } from './lib.js';
import { procRss } from './simProcess.js';

const MiB = 1024 * 1024;
/** Issue 45: three 100 MiB text PUTs at once, all answered, the recorder's RSS growth below this. */
const RSS_LIMIT = 64 * MiB;

/** A stand-in upstream that reads each body and drops it, then answers a small JSON. */
async function startSink() {
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ bytes }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/**
 * PUT `size` bytes of text to `url`, made block by block as the socket takes them (the bench
 * never holds a body whole either); resolves to the answer's status and the body's MD5.
 */
function putText(url: string, size: number, block: Buffer): Promise<{ status: number; md5: string }> {
  return new Promise((resolve, reject) => {
    const hash = createHash('md5');
    const req = request(url, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(size) },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, md5: hash.digest('hex') }));
    });
    req.on('error', reject);
    let sent = 0;
    const more = () => {
      while (sent < size) {
        const b = block.subarray(0, Math.min(block.length, size - sent));
        sent += b.length;
        hash.update(b);
        if (!req.write(b)) return void req.once('drain', more);
      }
      req.end();
    };
    more();
  });
}

/** `count` PUTs of `size` at once to `base`/storage/…; MiB/s over all, and each result. */
async function putAll(base: string, count: number, size: number, block: Buffer) {
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) => putText(`${base}/storage/bench/record-${i}`, size, block)),
  );
  return { rate: (count * size) / MiB / ((performance.now() - t0) / 1000), results };
}

/**
 * Record mode with large bodies: three concurrent 100 MiB text/plain PUTs through a recorder
 * (`serve --record`, a child process) to a sink upstream. Before issue 45 the recorder read
 * each body whole (peak 956 MiB, two PUTs dropped unanswered) and wrote the text into the HAR.
 * Its RSS growth is measured from /proc; the same PUTs straight to the sink are the baseline
 * of throughput, in the same run.
 */
export const recordMemoryBenchmark: Benchmark = {
  name: 'record-memory',
  target: '3 concurrent 100 MiB text PUTs through serve --record: all answered, recorder RSS growth < 64 MiB',
  async run({ quick, flags }) {
    const sizeMiB = Number(flags['size-mib'] ?? (quick ? 32 : 100));
    const count = Number(flags.concurrency ?? 3);
    const size = Math.round(sizeMiB * MiB);
    const block = Buffer.from('recorded text that streams through and is never kept whole\n'.repeat(17_000));
    const sink = await startSink();
    const dir = await mkdtemp(join(tmpdir(), 'partner-sim-record-bench-'));
    const rec = await spawnSimulator(['--in-memory', '--record', dir, '--upstream', sink.url]);
    try {
      // A first small exchange loads the recorder's code and opens its file.
      await putAll(rec.url, 1, 1024, block);
      const pid = rec.child.pid!;
      const before = await procRss(pid);
      let peak = before;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await procRss(pid));
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const through = await putAll(rec.url, count, size, block);
      sampling = false;
      await sampler;
      peak = Math.max(peak, await procRss(pid));
      const direct = await putAll(sink.url, count, size, block);

      const [name] = await readdir(dir);
      const har = JSON.parse(await readFile(join(dir, name!), 'utf8'));
      const kept = har.log.entries.slice(1) as { request: { postData: { _size?: number; _md5?: string } } }[];
      const answered = through.results.filter((r) => r.status === 200).length;
      const md5s = kept.map((e) => e.request.postData._md5).sort();
      const md5Ok = JSON.stringify(md5s) === JSON.stringify(through.results.map((r) => r.md5).sort());
      const growth = peak - before;
      const harBytes = Buffer.byteLength(JSON.stringify(har));
      const ok = answered === count && growth < RSS_LIMIT && md5Ok && kept.length === count;
      const mark = (pass: boolean) => (pass ? 'OK' : 'MISSED');
      return {
        ok,
        lines: [
          `${count} concurrent PUTs of ${sizeMiB} MiB text/plain each, through the recorder to a sink upstream`,
          `answered: ${answered}/${count} ${mark(answered === count)}; recorded: ${kept.length} entries, sizes and MD5s ${md5Ok ? 'match' : 'DIFFER'}; HAR file ${fmt(harBytes / 1024)} KiB`,
          `recorder RSS: ${fmt(before / MiB)} MiB after start, peak ${fmt(peak / MiB)} MiB, growth ${fmt(growth / MiB)} MiB (limit ${RSS_LIMIT / MiB}) ${mark(growth < RSS_LIMIT)}`,
          `throughput: ${fmt(through.rate, 0)} MiB/s through the recorder, ${fmt(direct.rate, 0)} MiB/s straight to the sink = ${fmt(through.rate / direct.rate, 2)}x`,
        ],
      };
    } finally {
      await rec.stop();
      sink.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
