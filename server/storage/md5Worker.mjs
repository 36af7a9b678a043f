// The MD5 worker of hashPool.ts, one per pool slot. Plain JavaScript, not TypeScript, so the
// same file runs from the sources (vitest), from dist/ and from the bundled CLI, and ships in
// the package as it is. It holds hashes in progress (`jobs`) and, per running-hash key, the
// MD5 state after each fed part (`states[key][n]` = after n parts): a copy of the state before
// a part is where a replaced part restarts from. Files are read synchronously: this thread
// does nothing else, and its messages stay in order.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

const jobs = new Map();
const states = new Map();
const buf = Buffer.allocUnsafe(1 << 20);
parentPort.on('message', (m) => {
  try {
    if (m.op === 'start') {
      const base = m.at > 0 ? states.get(m.key)?.[m.at] : undefined;
      if (m.at > 0 && !base) throw new Error(`no running MD5 state ${m.key}@${m.at}`);
      jobs.set(m.job, base ? base.copy() : createHash('md5'));
    } else if (m.op === 'data') {
      jobs.get(m.job)?.update(new Uint8Array(m.buf, 0, m.len));
      parentPort.postMessage({ job: m.job, ack: m.len, buf: m.buf }, [m.buf]);
    } else if (m.op === 'file') {
      const h = jobs.get(m.job);
      if (!h) return;
      const fd = openSync(m.path, 'r');
      try {
        for (;;) {
          const n = readSync(fd, buf, 0, buf.length, null);
          if (n <= 0) break;
          h.update(buf.subarray(0, n));
        }
      } finally {
        closeSync(fd);
      }
    } else if (m.op === 'end') {
      const h = jobs.get(m.job);
      if (!h) throw new Error('hash job failed');
      jobs.delete(m.job);
      if (m.save !== undefined) {
        let s = states.get(m.key);
        if (!s) {
          s = [];
          states.set(m.key, s);
        }
        s.length = m.save;
        s[m.save] = h;
        parentPort.postMessage({ job: m.job, md5: new Uint8Array(0) });
      } else {
        parentPort.postMessage({ job: m.job, md5: h.digest() });
      }
    } else if (m.op === 'truncate') {
      const s = states.get(m.key);
      if (s && s.length > m.at + 1) s.length = m.at + 1;
    } else if (m.op === 'drop') {
      states.delete(m.key);
    }
  } catch (e) {
    if (m.job === undefined) return;
    jobs.delete(m.job);
    parentPort.postMessage({ job: m.job, error: String(e?.message) });
  }
});
