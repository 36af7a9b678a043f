import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { Agent, get } from 'node:http';
import { join } from 'node:path';

/**
 * Baselines the upload benchmark measures in the same run. The baseline of a download: a bare node:http server in its own process (as the simulator
 * is) answering every GET with plain `fs.createReadStream`s of the given files, one after
 * the other, piped into the response.
 */
const FILE_SERVER = `
const { createServer } = require('node:http');
const { createReadStream } = require('node:fs');
const { pipeline } = require('node:stream/promises');
const files = process.argv.slice(1);
const server = createServer(async (req, res) => {
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  res.setMaxListeners(0);
  for (const f of files) await pipeline(createReadStream(f), res, { end: false });
  res.end();
});
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
`;

/**
 * The ceiling of an upload on this machine: a bare node:http server in its own process that
 * streams each PUT body into its own file (fs.createWriteStream, no hashing, no checks) and
 * answers 200. Files go to the folder given as its first argument.
 */
const SINK_SERVER = `
const { createServer } = require('node:http');
const { createWriteStream } = require('node:fs');
const { pipeline } = require('node:stream/promises');
let n = 0;
const server = createServer(async (req, res) => {
  await pipeline(req, createWriteStream(process.argv[1] + '/' + n++));
  res.writeHead(200, { etag: '"0"' }).end();
});
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
`;

/** The blob files of an upload in a simulator's data folder, in part order. */
export async function partFiles(dataDir: string, uploadId: string): Promise<string[]> {
  const dir = join(dataDir, 'blobs', 'uploads', uploadId);
  const names = await readdir(dir);
  return names.sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10)).map((n) => join(dir, n));
}

/** Serve `files` as one download from a child process; `stop` ends it. */
export const startFileServer = (files: string[]) => startChild(FILE_SERVER, files);

/** A bare server writing each PUT body to a file in `dir` (see SINK_SERVER). */
export const startSinkServer = (dir: string) => startChild(SINK_SERVER, [dir]);

function startChild(script: string, args: string[]): Promise<{ url: string; pid: number; stop(): void }> {
  const child = spawn(process.execPath, ['-e', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`baseline server exited with ${code}`)));
    child.stdout!.on('data', (d: Buffer) => {
      const port = /port (\d+)/.exec(d.toString())?.[1];
      if (!port) return;
      child.removeAllListeners('exit');
      child.stdout!.removeAllListeners('data');
      child.stdout!.removeAllListeners('data');
      resolve({ url: `http://127.0.0.1:${port}/`, pid: child.pid!, stop: () => child.kill() });
    });
  });
}

/** GET `url` and count its bytes (discarded as they arrive): MiB/s and the byte count. */
function timeDownload(url: string): Promise<{ bytes: number; ms: number }> {
  const agent = new Agent({ keepAlive: false });
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => {
        bytes += d.length;
      });
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`GET ${url}: ${res.statusCode}`));
        else resolve({ bytes, ms: performance.now() - t0 });
      });
      res.on('error', reject);
    }).on('error', reject);
  });
}

/**
 * Best of `rounds` downloads of each, alternated so both see the same machine: the
 * simulator's DownloadUrl against the baseline file server. MiB/s of each.
 */
export async function compareDownloads(
  simUrl: string,
  baseUrl: string,
  size: number,
  rounds = 2,
): Promise<{ sim: number; base: number }> {
  const rate = (r: { bytes: number; ms: number }, what: string): number => {
    if (r.bytes !== size) throw new Error(`${what} download: ${r.bytes} bytes, expected ${size}`);
    return r.bytes / (1024 * 1024) / (r.ms / 1000);
  };
  let sim = 0;
  let base = 0;
  for (let i = 0; i < rounds; i++) {
    sim = Math.max(sim, rate(await timeDownload(simUrl), 'simulator'));
    base = Math.max(base, rate(await timeDownload(baseUrl), 'baseline'));
  }
  return { sim, base };
}
