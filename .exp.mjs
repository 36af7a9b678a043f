import { parseBuffer } from 'music-metadata';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
const MIME={mp3:'audio/mpeg',wav:'audio/wav',m4a:'audio/mp4'};
function cov(f,size){ return f.duration&&f.bitrate? f.duration*f.bitrate/8/size : null }
for (const f of ['hello.wav','meeting.mp3','note.m4a']) { const b=readFileSync('fixtures/audio/'+f); const m=await parseBuffer(b,{mimeType:MIME[f.split('.')[1]],size:b.length},{duration:true}); console.log(f,cov(m.format,b.length), m.format.numberOfSamples, m.format.duration) }
const stats={};
for (const ext of ['mp3','wav','m4a']) for (let i=0;i<300;i++){
  const size = [100,1000,5000,50000,200000][i%5];
  const b=randomBytes(size);
  let r;
  try { const m=await parseBuffer(b,{mimeType:MIME[ext],size},{duration:true}); const f=m.format; r = f.duration? `dur cov=${cov(f,size)?.toFixed(3)} samples=${f.numberOfSamples}`:'nodur'; } catch(e){ r='err' }
  if (r.startsWith('dur')) console.log(ext,size,r);
  stats[ext+(r.startsWith('dur')?'dur':r)]=(stats[ext+(r.startsWith('dur')?'dur':r)]||0)+1;
}
console.log(stats);
