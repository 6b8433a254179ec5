// node --import tsx bench/profile-top.ts FILE.cpuprofile [--top 20]
// Where a process's time went, from a profile `npm run bench -- --profile DIR` left (node's
// --cpu-prof): self time by function and by file or package, largest first, so a missed target
// can be explained in a sentence without opening DevTools.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { profileTop } from './lib/profile.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '20' } },
});
const file = positionals[0];
if (!file)
  throw new Error('give a .cpuprofile file, e.g. bench/profile-top.ts /tmp/p/CPU.1.cpuprofile');
const top = profileTop(JSON.parse(fs.readFileSync(file, 'utf8')), Number(values.top));
console.log(`${file}: ${top.totalMs.toFixed(0)} ms sampled\n`);
console.log('self ms  function (file:line)');
for (const f of top.functions) console.log(`${f.ms.toFixed(0).padStart(7)}  ${f.name}`);
console.log('\nself ms  file or package');
for (const f of top.files) console.log(`${f.ms.toFixed(0).padStart(7)}  ${f.name}`);
