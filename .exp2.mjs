import { parseBuffer } from 'music-metadata';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
const MIME={mp3:'audio/mpeg',wav:'audio/wav',m4a:'audio/mp4'};
for (const f of ['hello.wav','meeting.mp3','note.m4a']) { const b=readFileSync('fixtures/audio/'+f); const m=await parseBuffer(b,{mimeType:MIME[f.split('.')[1]],size:b.length},{duration:true}); console.log(f, JSON.stringify(m.quality)) }
for (let i=0;i<6;i++){ const b=randomBytes(50000); const m=await parseBuffer(b,{mimeType:'audio/mpeg',size:b.length},{duration:true}); console.log(m.format.duration, JSON.stringify(m.quality).slice(0,300)) }
