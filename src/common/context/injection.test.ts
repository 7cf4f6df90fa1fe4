// Injection settings as read by the prompt hook (injectionFor, no zod) and as the API checks them
// (settingsSchema): the same values are valid to both; overrides layer over the global settings;
// and the pure parts they steer (recency, the budgets of the rendered blocks).
import { describe, expect, it } from 'vitest';
import { injectionOverrideSchema, settingsPatchSchema, settingsSchema } from '../api/settings';
import { HOT_TOTAL_BYTES, RELEVANT_MAX_BYTES, RELEVANT_MAX_FILES } from '../memory/constants';
import { EMPTY_USAGE } from '../memory/usage';
import { DEFAULT_INJECTION, INJECTION_LIMITS, injectionFor, MAX_CONTEXT_BYTES, readOverride, validInjectionValue, type InjectionSettings } from './injection';
import { rankRecent } from './ranking';
import { RECENT_HEADER, renderHotSet, renderIndex, renderRelevant, utf8Length } from './render';

describe('injectionFor', () => {
  it('gives the constants the context always used when nothing is set', () => {
    expect(DEFAULT_INJECTION).toEqual({ relevant: 'relevant', relevantMaxBytes: RELEVANT_MAX_BYTES, relevantMaxFiles: RELEVANT_MAX_FILES, hotSetMaxBytes: HOT_TOTAL_BYTES, recentWhenNoMatch: false });
    for (const nothing of [undefined, null, {}, 'x', [], { injection: null }]) expect(injectionFor(nothing, 'ws')).toEqual(DEFAULT_INJECTION);
    // The API's own defaults are the same.
    const parsed = settingsSchema.parse({});
    expect(injectionFor(parsed, 'ws')).toEqual(DEFAULT_INJECTION);
    expect(parsed.injection).toEqual(DEFAULT_INJECTION);
  });

  it("layers a workspace's override over the global settings, field by field, for that workspace alone", () => {
    const settings = { injection: { ...DEFAULT_INJECTION, relevant: 'off', hotSetMaxBytes: 4096 }, injectionByWorkspace: { a: { relevant: 'recent_only' }, b: {} } };
    expect(injectionFor(settings, 'a')).toEqual({ ...DEFAULT_INJECTION, relevant: 'recent_only', hotSetMaxBytes: 4096 });
    expect(injectionFor(settings, 'b')).toEqual({ ...DEFAULT_INJECTION, relevant: 'off', hotSetMaxBytes: 4096 });
    expect(injectionFor(settings, 'c')).toEqual(injectionFor(settings, 'b'));
    expect(injectionFor(settings, null)).toEqual(injectionFor(settings, 'b'));
    // An id that is a property of every object is no workspace.
    expect(injectionFor(settings, 'constructor')).toEqual(injectionFor(settings, 'b'));
  });

  it('takes each valid field of a hand-written value and drops the others', () => {
    expect(readOverride({ relevant: 'sometimes', relevantMaxFiles: 3, hotSetMaxBytes: -1, relevantMaxBytes: 1000.5, recentWhenNoMatch: 'yes', extra: 1 })).toEqual({ relevantMaxFiles: 3 });
    expect(injectionFor({ injection: { relevantMaxFiles: 0, recentWhenNoMatch: true } }, null)).toEqual({ ...DEFAULT_INJECTION, recentWhenNoMatch: true });
  });

  it('finds valid exactly what the API accepts', () => {
    const values: Record<keyof InjectionSettings, unknown[]> = {
      relevant: ['relevant', 'recent_only', 'off', 'RELEVANT', '', null, 1],
      recentWhenNoMatch: [true, false, 'true', 0, null],
      relevantMaxBytes: [INJECTION_LIMITS.relevantMaxBytes.min, INJECTION_LIMITS.relevantMaxBytes.min - 1, INJECTION_LIMITS.relevantMaxBytes.max, INJECTION_LIMITS.relevantMaxBytes.max + 1, 2048.5, '2048', Number.NaN],
      relevantMaxFiles: [1, 0, 50, 51, 1.5, Infinity],
      hotSetMaxBytes: [0, -1, INJECTION_LIMITS.hotSetMaxBytes.max, INJECTION_LIMITS.hotSetMaxBytes.max + 1, 100.25],
    };
    for (const [key, list] of Object.entries(values) as Array<[keyof InjectionSettings, unknown[]]>) {
      for (const value of list) {
        const api = injectionOverrideSchema.safeParse({ [key]: value }).success && settingsPatchSchema.safeParse({ injection: { ...DEFAULT_INJECTION, [key]: value } }).success;
        expect([key, value, validInjectionValue(key, value)]).toEqual([key, value, api]);
      }
    }
  });
});

describe('rankRecent', () => {
  const file = (path: string, mtime: string, used: string | null = null, written: string | null = null) => ({
    path,
    mtimeMs: Date.parse(mtime),
    stats: { ...EMPTY_USAGE, lastAccessedAt: used, lastWriteAt: written, accessCount: used ? 1 : 0 },
  });
  it('puts the most recently used, written or changed first, ties by path', () => {
    const files = [
      file('/b', '2025-01-01T00:00:00Z', '2025-03-01T00:00:00Z'),
      file('/a', '2025-02-01T00:00:00Z'),
      file('/c', '2025-01-01T00:00:00Z', null, '2025-04-01T00:00:00Z'),
      file('/d', '2025-02-01T00:00:00Z', 'not a date'),
    ];
    expect(rankRecent(files).map((f) => f.path)).toEqual(['/c', '/b', '/a', '/d']);
  });
});

describe('budgets of the rendered blocks', () => {
  const files = Array.from({ length: 8 }, (_, i) => ({ path: `/memories/global/f${i}.md`, excerpt: `line ${i} `.repeat(30) }));
  it('relevant memories: at most the files and the bytes given, under the header given', () => {
    const three = renderRelevant(files, { maxFiles: 3, maxBytes: 64 * 1024 }, RECENT_HEADER);
    expect(three.split('\n')[1]).toBe(RECENT_HEADER);
    expect(three.match(/<memory_file /g)).toHaveLength(3);
    for (const maxBytes of [512, 700, 1500, 4096]) expect(utf8Length(renderRelevant(files, { maxFiles: 50, maxBytes }))).toBeLessThanOrEqual(maxBytes);
    // The defaults are the constants.
    expect(renderRelevant(files)).toBe(renderRelevant(files, { maxFiles: RELEVANT_MAX_FILES, maxBytes: RELEVANT_MAX_BYTES }));
  });

  it('hot set: within the bytes given; 0 gives no block at all', () => {
    const hot = files.map((f) => ({ path: f.path, content: f.excerpt }));
    for (const maxBytes of [300, 1000, 3000]) expect(utf8Length(renderHotSet(hot, maxBytes))).toBeLessThanOrEqual(Math.max(maxBytes, utf8Length(renderHotSet([]))));
    expect(renderHotSet(hot, 0)).toBe('');
    expect(renderHotSet(hot)).toBe(renderHotSet(hot, HOT_TOTAL_BYTES));
  });
});

describe('MAX_CONTEXT_BYTES', () => {
  it('holds the largest context any settings give: every part at its largest budget, with the notes of three scopes', () => {
    // Files far past every budget, their text the widest there is in UTF-8 (4 bytes a character).
    const wide = '\u{1F600}'.repeat(40_000);
    const entries = Array.from({ length: 3000 }, (_, i) => ({ path: `/memories/project/${'n'.repeat(200)}-${i}.md`, description: wide.slice(0, 400) }));
    const notes = ['global', 'project', 'workspace'].map((s) => `(/memories/${s} is unavailable: ${'a reason that names what to run '.repeat(8)})`);
    const index = renderIndex(entries, [...notes, '(2000 files withheld)'], ['/memories/global', '/memories/project', '/memories/workspace']);
    const files = Array.from({ length: 200 }, (_, i) => ({ path: `/memories/global/${i}.md`, content: wide }));
    const hot = renderHotSet(files, INJECTION_LIMITS.hotSetMaxBytes.max);
    const relevant = renderRelevant(
      files.map((f) => ({ path: f.path, excerpt: f.content })),
      { maxFiles: INJECTION_LIMITS.relevantMaxFiles.max, maxBytes: INJECTION_LIMITS.relevantMaxBytes.max },
    );
    const context = [index, hot, relevant].join('\n\n');
    // Each part filled its budget, and the whole is within the bound.
    expect(utf8Length(hot)).toBeGreaterThan(INJECTION_LIMITS.hotSetMaxBytes.max - 20 * 1024);
    expect(utf8Length(relevant)).toBeGreaterThan(INJECTION_LIMITS.relevantMaxBytes.max - 1024);
    expect(utf8Length(context)).toBeLessThanOrEqual(MAX_CONTEXT_BYTES);
  });
});
