/**
 * Summarises `node --cpu-prof` output: self time by package (node_modules/<pkg>,
 * bo1's own src/<dir>, node internals, GC, idle) and the top functions.
 * `node --import tsx tests/bench/cpu-profile.ts <dir or .cpuprofile>`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

function bucket(url: string, fn: string): string {
  if (fn === '(idle)' || fn === '(program)' || fn === '(garbage collector)') return fn;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const src = /\/(src|tests)\/([^/]+)/.exec(url);
  if (src) return `${src[1]}/${src[2]}`;
  if (url.startsWith('node:') || url === '') return 'node internals';
  return url;
}

const arg = process.argv[2] ?? '.';
const files = statSync(arg).isDirectory()
  ? readdirSync(arg)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(arg, f))
  : [arg];
// The throughput bench writes the window it measured (window.json beside the profiles): samples outside it are left out.
const windowFile = statSync(arg).isDirectory() ? join(arg, 'window.json') : '';
const window = windowFile && existsSync(windowFile) ? (JSON.parse(readFileSync(windowFile, 'utf8')) as { from: number; to: number }) : null;
const byBucket = new Map<string, number>();
const byFn = new Map<string, number>();
/** Node internals (socket writes, JSON, timers) charged to the nearest caller that is a package or bo1's code. */
const byOrigin = new Map<string, number>();
/** Inclusive time: each sample charged once to every distinct function of bo1's own code on its stack (what a subtree costs). */
const byTotal = new Map<string, number>();
const INTERNAL = new Set(['node internals', '(program)', '(garbage collector)']);
let total = 0;
const frameKey = (n: Node, b: string): string => {
  const file = n.callFrame.url.startsWith('file:') ? n.callFrame.url.replace(/^.*\/(src|tests|node_modules)\//, '$1/') : b;
  return `${n.callFrame.functionName || '(anonymous)'} ${file}`;
};
for (const f of files) {
  const p = JSON.parse(readFileSync(f, 'utf8')) as Profile;
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const origin = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = nodes.get(at)!.callFrame;
      const b = bucket(f.url, f.functionName);
      if (!INTERNAL.has(b) && f.functionName !== '(root)') return b;
    }
    return bucket(nodes.get(id)!.callFrame.url, nodes.get(id)!.callFrame.functionName);
  };
  let clock = p.startTime;
  p.samples.forEach((id, i) => {
    const n = nodes.get(id)!;
    const us = p.timeDeltas[i] ?? 0;
    clock += us;
    if (window && (clock < window.from || clock > window.to)) return;
    const b = bucket(n.callFrame.url, n.callFrame.functionName);
    byBucket.set(b, (byBucket.get(b) ?? 0) + us);
    if (b !== '(idle)') {
      total += us;
      const o = origin(id);
      byOrigin.set(o, (byOrigin.get(o) ?? 0) + us);
      byFn.set(frameKey(n, b), (byFn.get(frameKey(n, b)) ?? 0) + us);
      const seen = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const a = nodes.get(at)!;
        const ab = bucket(a.callFrame.url, a.callFrame.functionName);
        if (!ab.startsWith('src/') || !a.callFrame.functionName) continue;
        const key = frameKey(a, ab);
        if (seen.has(key)) continue;
        seen.add(key);
        byTotal.set(key, (byTotal.get(key) ?? 0) + us);
      }
    }
  });
}
const share = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms`;
console.log(`busy (non-idle) CPU samples: ${(total / 1000).toFixed(0)} ms over ${files.length} profile(s)${window ? `, within the measured window of ${((window.to - window.from) / 1e6).toFixed(1)} s` : ''}`);
console.log('\nself time by package:');
for (const [b, us] of [...byBucket].filter(([b]) => b !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${share(us)}  ${b}`);
console.log('\nthe same with node internals charged to their nearest caller (what a socket write was for):');
for (const [b, us] of [...byOrigin].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${share(us)}  ${b}`);
console.log('\ntop functions (self):');
for (const [k, us] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${share(us)}  ${k}`);
console.log("\ntop named functions of bo1's own code (inclusive: the function and all it calls):");
for (const [k, us] of [...byTotal].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${share(us)}  ${k}`);
