import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Prompt templates from `prompts/`. A template is Markdown with a front matter
 * (`name`, `version`), then `## system: <label>` sections (what calls of a
 * session share, sent first so a provider can cache them) and one `## user`
 * section (what changes per call). `{{path.to.value}}` interpolates;
 * `{{> partial}}` includes `prompts/partials/<partial>.md`. A system section
 * that is a lone `{{value}}` naming a list becomes one block per item (the
 * board record's chapters), so a later call whose list only grew shares every
 * earlier block. A missing value is an error, never "undefined".
 */

export interface Template {
  name: string;
  version: string;
  system: { label: string; body: string }[];
  user: string;
}

export interface RenderedPrompt {
  /** `name@version`, recorded with every call. */
  version: string;
  system: string[];
  /** The system blocks a cache breakpoint follows (see `render`); absent: the last block. */
  cacheAfter?: number[];
  user: string;
}

/** Anthropic's limit of cache breakpoints per request. */
const BREAKPOINTS = 4;

export const PROMPTS_DIR = fileURLToPath(new URL('../../prompts', import.meta.url));

export function parseTemplate(source: string, partials: Record<string, string> = {}): Template {
  const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(source);
  if (!m) throw new Error('template has no front matter');
  const meta = Object.fromEntries(
    m[1]!.split('\n').map((line) => {
      const i = line.indexOf(':');
      return [line.slice(0, i).trim(), line.slice(i + 1).trim()];
    }),
  );
  if (!meta.name || !meta.version) throw new Error('template front matter needs name and version');
  const body = m[2]!.replace(/\{\{>\s*([\w-]+)\s*\}\}/g, (_, p: string) => {
    const partial = partials[p];
    if (partial === undefined) throw new Error(`template ${meta.name}: unknown partial ${p}`);
    return partial.trim();
  });
  const system: Template['system'] = [];
  let user: string | null = null;
  for (const section of body.split(/^## /m).slice(1)) {
    const nl = section.indexOf('\n');
    const head = section.slice(0, nl).trim();
    const text = section.slice(nl + 1).trim();
    if (head === 'user') user = text;
    else if (head.startsWith('system:')) system.push({ label: head.slice(7).trim(), body: text });
    else throw new Error(`template ${meta.name}: unknown section "## ${head}"`);
  }
  if (user === null) throw new Error(`template ${meta.name} has no "## user" section`);
  return { name: meta.name, version: meta.version, system, user };
}

function lookup(vars: Record<string, unknown>, path: string): unknown {
  let v: unknown = vars;
  for (const part of path.split('.')) v = v === null || typeof v !== 'object' ? undefined : (v as Record<string, unknown>)[part];
  return v;
}

function interpolate(text: string, vars: Record<string, unknown>, where: string): string {
  const parts = pieces(text);
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const path = parts[i]!;
    const v = lookup(vars, path);
    if (v === undefined || v === null) throw new Error(`prompt ${where}: no value for {{${path}}}`);
    out += (Array.isArray(v) ? v.map((x) => `- ${String(x)}`).join('\n') : String(v)) + parts[i + 1]!;
  }
  return out;
}

/**
 * A template text split once at its placeholders: literal, path, literal, … (split keeps the captured paths). Every
 * model call renders its template, and scanning the whole text for placeholders each time cost more than the values.
 * The texts are the loaded templates' own, a fixed set.
 */
const split = new Map<string, string[]>();
function pieces(text: string): string[] {
  let parts = split.get(text);
  if (!parts) split.set(text, (parts = text.split(/\{\{\s*([\w.]+)\s*\}\}/)));
  return parts;
}

/**
 * Every system block ends where an earlier call of the session may have
 * written a cache entry; the last four block ends carry the breakpoints, so a
 * call finds the longest prefix a call before it wrote even when the record
 * grew by up to three chapters since.
 */
export function render(t: Template, vars: Record<string, unknown>): RenderedPrompt {
  const system: string[] = [];
  for (const s of t.system) {
    const where = `${t.name}/${s.label}`;
    const whole = /^\{\{\s*([\w.]+)\s*\}\}$/.exec(s.body);
    const value = whole ? lookup(vars, whole[1]!) : undefined;
    if (Array.isArray(value)) system.push(...value.map(String).filter((b) => b.trim()));
    else system.push(interpolate(s.body, vars, where));
  }
  const cacheAfter = system.map((_, i) => i).slice(-BREAKPOINTS);
  return { version: `${t.name}@${t.version}`, system, cacheAfter, user: interpolate(t.user, vars, `${t.name}/user`) };
}

/** Loads every template in the folder once; a broken template fails at start, not mid-session. */
export function loadPrompts(dir = PROMPTS_DIR): Map<string, Template> {
  const partialsDir = `${dir}/partials`;
  const partials: Record<string, string> = {};
  for (const f of safeList(partialsDir)) partials[f.replace(/\.md$/, '')] = readFileSync(`${partialsDir}/${f}`, 'utf8');
  const templates = new Map<string, Template>();
  for (const f of safeList(dir)) {
    const t = parseTemplate(readFileSync(`${dir}/${f}`, 'utf8'), partials);
    templates.set(t.name, t);
  }
  return templates;
}

const safeList = (dir: string) => {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.md')).sort();
  } catch {
    return [];
  }
};
