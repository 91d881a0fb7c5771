import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock (the one process.hrtime reads). */
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  location: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  file: string;
  /** Whether only samples in the asked window were counted (else the whole profile). */
  windowed: boolean;
  totalMs: number;
  top: SelfTime[];
  /** Self time grouped by where the code lives: an npm package, node core, src/, wasm, or the VM itself. */
  byOrigin: { origin: string; ms: number; share: number }[];
}

/** The largest .cpuprofile in `dir`: the main thread's (tsx's loader thread writes a small one too). */
export function largestProfile(dir: string): string | undefined {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(dir, name));
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
}

/**
 * The functions with the most self time in a V8 .cpuprofile (node --cpu-prof), counting only samples
 * taken between `fromUs` and `toUs` (monotonic microseconds) when the profile covers that window.
 */
export function summarizeProfile(
  file: string,
  root: string,
  window: { fromUs: number; toUs: number },
  count = 15,
): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const windowed = profile.startTime <= window.fromUs && window.toUs <= profile.endTime;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  let time = profile.startTime;
  let totalUs = 0;
  for (let index = 0; index < profile.samples.length; index++) {
    time += profile.timeDeltas[index] ?? 0;
    const next = profile.timeDeltas[index + 1] ?? 0;
    if (windowed && (time < window.fromUs || time > window.toUs)) continue;
    const id = profile.samples[index]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + next);
    totalUs += next;
  }
  const byFunction = new Map<string, SelfTime>();
  const byOrigin = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id)?.callFrame;
    if (!frame) continue;
    const origin = originOf(frame.url, frame.functionName);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + us);
    const location = frame.url ? `${shorten(frame.url, root)}:${frame.lineNumber + 1}` : '';
    const key = `${frame.functionName}@${location}`;
    const entry = byFunction.get(key) ?? { name: frame.functionName || '(anonymous)', location, ms: 0, share: 0 };
    entry.ms += us / 1000;
    byFunction.set(key, entry);
  }
  const top = [...byFunction.values()]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map((entry) => ({ ...entry, share: totalUs === 0 ? 0 : (entry.ms * 1000) / totalUs }));
  const origins = [...byOrigin]
    .sort((a, b) => b[1] - a[1])
    .map(([origin, us]) => ({ origin, ms: us / 1000, share: totalUs === 0 ? 0 : us / totalUs }));
  return { file, windowed, totalMs: totalUs / 1000, top, byOrigin: origins };
}

function originOf(url: string, functionName: string): string {
  if (functionName === '(idle)') return '(idle)';
  if (functionName === '(garbage collector)') return '(garbage collector)';
  if (!url) return 'native (syscalls, VM)';
  if (url.startsWith('node:')) return 'node core';
  if (url.startsWith('wasm:')) return "wasm (undici's HTTP parser)";
  const inModules = url.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const parts = url.slice(inModules + 'node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? url);
  }
  return url.includes('/src/') ? 'src/' : url;
}

function shorten(url: string, root: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  return path.startsWith(root) ? relative(root, path) : path;
}
