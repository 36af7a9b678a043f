import type { Readable } from 'node:stream';

/**
 * Whether bytes really hold MPEG audio frames (MP1/2/3) or ADTS frames (AAC), the two framings
 * music-metadata's MPEG parser reads. It syncs on any 0xFFE bit pattern and so "finds" a few
 * frames (and a duration) in random bytes, taking some for one framing and some for the
 * other; real audio is a chain of frames, each header valid and the next one starting exactly
 * where its length says, all of one kind. A chain of CHAIN frames cannot happen by chance
 * (each link is ~1 in 2,500 for random bytes); the same rule holds for both framings.
 */
const CHAIN = 6;
/** How far past the tags the first frame may start (encoders leave a little junk). */
const SEARCH = 64 * 1024;

// kbit/s by [version 1 | 2/2.5][layer I, II, III][index]
const V1 = [
  [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
];
const V2L1 = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256];
const V2L23 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES: Record<number, number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

interface Frame {
  length: number;
  /** Version, layer and sample rate: constant along one stream. */
  kind: number;
}

function mpegFrameAt(b: Buffer, i: number): Frame | undefined {
  if (i + 4 > b.length || b[i] !== 0xff || (b[i + 1]! & 0xe0) !== 0xe0) return undefined;
  const version = (b[i + 1]! >> 3) & 3; // 0: 2.5, 1: reserved, 2: 2, 3: 1
  const layer = 4 - ((b[i + 1]! >> 1) & 3); // 1..3; 4 is reserved
  const bitrateIdx = b[i + 2]! >> 4;
  const rateIdx = (b[i + 2]! >> 2) & 3;
  if (version === 1 || layer === 4 || bitrateIdx === 0 || bitrateIdx === 15 || rateIdx === 3)
    return undefined;
  const kbps = (version === 3 ? V1[layer - 1]! : layer === 1 ? V2L1 : V2L23)[bitrateIdx]! * 1000;
  const rate = RATES[version]![rateIdx]!;
  const pad = (b[i + 2]! >> 1) & 1;
  const length =
    layer === 1
      ? (Math.floor((12 * kbps) / rate) + pad) * 4
      : Math.floor(((layer === 3 && version !== 3 ? 72 : 144) * kbps) / rate) + pad;
  return { length, kind: (version << 4) | (layer << 2) | rateIdx };
}

/**
 * An ADTS header at `i`: 12 sync bits, layer 00, a sampling frequency index that exists, and a
 * frame length (header included) longer than the header. Its kind is what stays constant along
 * one stream: MPEG version, profile, sampling frequency and channel configuration.
 */
function adtsFrameAt(b: Buffer, i: number): Frame | undefined {
  if (i + 7 > b.length || b[i] !== 0xff || (b[i + 1]! & 0xf6) !== 0xf0) return undefined;
  const rateIdx = (b[i + 2]! >> 2) & 0xf;
  if (rateIdx > 12) return undefined;
  const length = ((b[i + 3]! & 3) << 11) | (b[i + 4]! << 3) | (b[i + 5]! >> 5);
  const header = b[i + 1]! & 1 ? 7 : 9; // protection absent, else a CRC follows
  if (length <= header) return undefined;
  const channels = ((b[i + 2]! & 1) << 2) | (b[i + 3]! >> 6);
  return { length, kind: ((b[i + 1]! & 0x08) << 8) | ((b[i + 2]! >> 6) << 8) | (rateIdx << 3) | channels };
}

/** Size of a leading ID3v2 tag (0 when there is none). */
function id3Size(b: Buffer): number {
  if (b.length < 10 || b.toString('latin1', 0, 3) !== 'ID3') return 0;
  const size = ((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f);
  return 10 + size + (b[5]! & 0x10 ? 10 : 0);
}

/** True when, after the ID3v2 tag, a chain of frames `frameAt` reads starts (or runs to the end). */
function hasChain(b: Buffer, frameAt: (b: Buffer, i: number) => Frame | undefined): boolean {
  const from = id3Size(b);
  for (let i = from; i < Math.min(b.length, from + SEARCH); i++) {
    const first = frameAt(b, i);
    if (!first) continue;
    let at = i;
    let links = 0;
    for (let f: Frame | undefined = first; f?.kind === first.kind; f = frameAt(b, at)) {
      at += f.length;
      if (++links >= CHAIN || (at === b.length && links > 1)) return true;
    }
  }
  return false;
}

/** A chain of MPEG audio frames (MP1/2/3) after the ID3v2 tag. */
export const hasMpegFrames = (b: Buffer): boolean => hasChain(b, mpegFrameAt);

/** A chain of ADTS frames (AAC) after the ID3v2 tag. */
export const hasAdtsFrames = (b: Buffer): boolean => hasChain(b, adtsFrameAt);

/** The first bytes of a file: its ID3v2 tag and what the frame search looks at after it. */
export async function readHead(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let have = 0;
  let want = 10;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      have += (chunk as Buffer).length;
      // Once the tag header is in, how much to read is known: the tag, then the search window.
      if (want === 10 && have >= 10) want = id3Size(Buffer.concat(chunks)) + SEARCH + 16 * 1024;
      if (have >= want) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}
