/**
 * What the strictest public clients refuse (live-service notes, fifth pass): a public TS
 * provider's checks of an upload plan and of a poll answer, written as lists of problems so a
 * property test can say which one broke. An empty list: the client takes it.
 */

/** The seven statuses, exactly. */
const STATUSES = ['PENDING', 'RECEIVED', 'STARTED', 'PROGRESS', 'SUCCESS', 'FAILURE', 'REVOKED'];

/** Its largest ChunkSize. */
export const MAX_CHUNK = 250 * 1024 * 1024;

interface Plan {
  ChunkSize?: unknown;
  Parts?: { PartNumber?: unknown; PresignedUrl?: unknown }[];
}

export function planProblems(plan: Plan, filesize: number): string[] {
  const out: string[] = [];
  const chunk = plan.ChunkSize;
  if (typeof chunk !== 'number' || !Number.isInteger(chunk) || chunk <= 0 || chunk > MAX_CHUNK)
    out.push(`ChunkSize ${String(chunk)} outside 1..250 MiB`);
  const parts = plan.Parts ?? [];
  if (typeof chunk === 'number' && chunk > 0 && parts.length !== Math.ceil(filesize / chunk))
    out.push(`${parts.length} parts, not ceil(${filesize}/${chunk})`);
  parts.forEach((p, i) => {
    if (p.PartNumber !== i + 1) out.push(`part ${i + 1} numbered ${String(p.PartNumber)}`);
    const url = String(p.PresignedUrl);
    let u: URL | undefined;
    try {
      u = new URL(url);
    } catch {
      out.push(`part ${i + 1}: not a URL`);
    }
    if (u && !/^https?:$/.test(u.protocol)) out.push(`part ${i + 1}: ${u.protocol} URL`);
    if (u && (u.username || u.password)) out.push(`part ${i + 1}: credentials in the URL`);
    if (url.includes('#')) out.push(`part ${i + 1}: a fragment`);
  });
  return out;
}

interface Seg {
  start?: unknown;
  end?: unknown;
}

/** A poll's answer for `askedId`, as the strict client reads it. */
export function pollProblems(body: Record<string, unknown>, askedId: string): string[] {
  const out: string[] = [];
  if (!STATUSES.includes(body.status as string)) out.push(`status ${String(body.status)}`);
  if (body.transcription_id !== askedId) out.push(`transcription_id ${String(body.transcription_id)}`);
  if (body.status !== 'SUCCESS') return out;
  const data = (body.data ?? {}) as { duration?: unknown; results?: Seg[]; segments?: Seg[] };
  if (!Array.isArray(data.results) && !Array.isArray(data.segments))
    out.push('SUCCESS without results/segments');
  for (const [name, list] of [
    ['results', data.results],
    ['segments', data.segments],
  ] as const) {
    let prev = -Infinity;
    (list ?? []).forEach((s, i) => {
      const at = `${name}[${i}]`;
      if (typeof s.start !== 'number' || s.start < 0) out.push(`${at}.start ${String(s.start)}`);
      if (typeof s.end !== 'number' || (typeof s.start === 'number' && s.end < s.start))
        out.push(`${at}.end ${String(s.end)} before its start`);
      if (typeof data.duration === 'number' && typeof s.end === 'number' && s.end > data.duration)
        out.push(`${at}.end ${s.end} past the duration ${data.duration}`);
      if (typeof s.start === 'number') {
        if (s.start < prev) out.push(`${at} out of order`);
        prev = s.start;
      }
    });
  }
  return out;
}
