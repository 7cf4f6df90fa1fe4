/**
 * The text of `<home>/config.json` as the registry (./registry.ts, its one writer) reads and edits it.
 *
 * Invariants, because the file is the person's as much as Cairn's (they edit it by hand):
 * - a file that does not parse is never written over: reading it throws SettingsFileError, which
 *   says the file, line and column and what to do, and no write happens until it is fixed;
 * - a value that breaks its schema falls back alone (to its default; a workspace entry is left
 *   out) and is reported; it stays in the file as it was;
 * - a write changes only the members whose value changed (jsonc-parser's modify), in the file's own
 *   indentation and line endings: everything else, unknown keys and invalid values included, stays
 *   byte for byte;
 * - a setting stored under its older name (LEGACY_SETTING_KEYS) is read as the current one; the file
 *   keeps the older name until Cairn next writes that setting, which writes the current name and
 *   removes the older one in the same edit.
 */
import * as fs from 'node:fs';
import { applyEdits, modify, parse as parseJsonc, type FormattingOptions } from 'jsonc-parser';
import { z } from 'zod';
import { settingsSchema } from '../../common/api/settings';
import { parseJsonTree } from '../../common/json/json-problem';
import { writeOwnFile } from '../runtime/local/atomic-write';
import { SettingsFileError } from './settings-file-error';

export type Settings = z.infer<typeof settingsSchema>;

/** config.json as stored: its text, and what the registry makes of it. */
export interface StoredConfig<W> {
  /** The file's text; null when there is no file. */
  readonly text: string | null;
  /** The `workspaces` array as stored, every entry with its checked value (null: not valid). */
  readonly rawWorkspaces: ReadonlyArray<{ readonly raw: unknown; readonly valid: W | null }>;
  /** The valid entries, in order. */
  readonly workspaces: W[];
  /** The settings, each invalid value replaced by its default. */
  readonly settings: Settings;
  /** What was invalid and fell back, one sentence each (for the commands to report). */
  readonly invalid: readonly string[];
}

/** Settings renamed since homes were made: the older name, and the setting it is now. */
const LEGACY_SETTING_KEYS: Readonly<Record<string, keyof Settings>> = { sweepExtractor: 'consolidationExtractor' };

/** The name `key` is stored under in `stored`: its own, else an older name still present, else its own. */
function storedKeyOf(stored: Record<string, unknown>, key: string): string {
  if (stored[key] !== undefined) return key;
  return Object.keys(LEGACY_SETTING_KEYS).find((old) => LEGACY_SETTING_KEYS[old] === key && stored[old] !== undefined) ?? key;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value stored in `text` (strict JSON), or SettingsFileError naming the first problem's place (common/json/json-problem.ts). */
function parseStrict(file: string, text: string): unknown {
  const { root, problem } = parseJsonTree(text, { comments: false });
  if (problem) throw new SettingsFileError(file, `line ${problem.line}, column ${problem.column}: ${problem.what}`);
  if (!root || root.type !== 'object') throw new SettingsFileError(file, 'line 1, column 1: it holds no JSON object');
  return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
}

/** The settings of `raw`, each member checked alone: an invalid one falls back to its default, and is reported. */
function settingsOf(raw: unknown): { settings: Settings; invalid: string[] } {
  const stored = isObject(raw) ? raw : {};
  const invalid: string[] = raw === undefined || isObject(raw) ? [] : ['"settings" is not an object; every setting has its default'];
  const settings: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(settingsSchema.shape)) {
    const storedKey = storedKeyOf(stored, key);
    const parsed = (field as z.ZodType).safeParse(stored[storedKey]);
    if (parsed.success) {
      settings[key] = parsed.data;
      continue;
    }
    settings[key] = (field as z.ZodType).parse(undefined);
    const issue = parsed.error.issues[0];
    const at = issue && issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
    invalid.push(`settings.${storedKey}${at} = ${JSON.stringify(stored[storedKey]).slice(0, 80)} is not valid (${issue?.message ?? 'invalid'}); it is kept in the file, and its default (${JSON.stringify(settings[key])}) is used`);
  }
  return { settings: settings as Settings, invalid };
}

/**
 * Reads config.json at `file`: nothing stored when it is missing; SettingsFileError when it does not
 * parse; otherwise its workspaces (`entry` checks each) and settings, with what fell back.
 */
export function readStoredConfig<W>(file: string, entry: z.ZodType<W>): StoredConfig<W> {
  let text: string | null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new SettingsFileError(file, `it cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    text = null;
  }
  const raw = text === null ? {} : (parseStrict(file, text) as Record<string, unknown>);
  const invalid: string[] = raw.workspaces === undefined || Array.isArray(raw.workspaces) ? [] : ['"workspaces" is not a list; no workspace is registered'];
  const rawWorkspaces = (Array.isArray(raw.workspaces) ? (raw.workspaces as unknown[]) : []).map((w, i) => {
    const parsed = entry.safeParse(w);
    if (!parsed.success) invalid.push(`workspaces[${i}] is not a valid workspace (${parsed.error.issues[0]?.message ?? 'invalid'}); it is kept in the file, and left out`);
    return { raw: w, valid: parsed.success ? parsed.data : null };
  });
  const workspaces = rawWorkspaces.flatMap((w) => (w.valid === null ? [] : [w.valid]));
  const settings = settingsOf(raw.settings);
  return { text, rawWorkspaces, workspaces, settings: settings.settings, invalid: [...invalid, ...settings.invalid] };
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The file's own layout: its indentation (tabs, or the first indented line's spaces) and line ending. */
function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/**
 * The text config.json holds once `stored` has become `next`: only changed members are edited, in
 * the file's own layout; stored workspace entries that are not valid stay where they were.
 */
export function editedConfigText<W extends { id: string }>(stored: StoredConfig<W>, next: { workspaces: readonly W[]; settings: Settings }): string {
  if (stored.text === null) return `${JSON.stringify({ version: 1, workspaces: next.workspaces, settings: next.settings }, null, 2)}\n`;
  let text = stored.text;
  const options = { formattingOptions: formattingOf(text) };
  if (!sameValue(stored.workspaces, next.workspaces)) {
    // Each stored entry as it was unless its value changed (a removed one dropped), invalid ones
    // kept in place, new ones appended.
    const byId = new Map(next.workspaces.map((w) => [w.id, w]));
    const kept = stored.rawWorkspaces.flatMap(({ raw, valid }) => {
      if (valid === null) return [raw];
      const now = byId.get(valid.id);
      byId.delete(valid.id);
      if (!now) return [];
      return [sameValue(now, valid) ? raw : now];
    });
    text = applyEdits(text, modify(text, ['workspaces'], [...kept, ...byId.values()], options));
  }
  const raw = parseJsonc(text) as { settings?: unknown } | undefined;
  const storedSettings = isObject(raw?.settings) ? raw.settings : {};
  for (const [key, value] of Object.entries(next.settings)) {
    if (sameValue((stored.settings as Record<string, unknown>)[key], value)) continue;
    text = applyEdits(text, modify(text, ['settings', key], value, options));
    for (const old of Object.keys(LEGACY_SETTING_KEYS)) {
      if (LEGACY_SETTING_KEYS[old] === key && storedSettings[old] !== undefined) text = applyEdits(text, modify(text, ['settings', old], undefined, options));
    }
  }
  return text;
}

/** Writes config.json whole and atomically (temp file in the home, fsync, rename), 0600. */
export async function writeConfigText(file: string, text: string): Promise<void> {
  await writeOwnFile(file, text);
}
