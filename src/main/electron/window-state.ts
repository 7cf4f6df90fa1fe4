/**
 * Remembers the main window's size, position and maximized state in <home>/window-state.json,
 * written whole (runtime/local/atomic-write.ts): a full disk leaves the last state, not an empty file.
 * A file that is not JSON is set aside and reported like every file of Cairn's own
 * (setAsideDamaged); a state out of range (a window made smaller than the defaults allow) just
 * opens at the defaults. Nothing here ever keeps the window from opening or closing.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { setAsideDamaged, writeOwnFileSync } from '../runtime/local/atomic-write';
import { errnoOf } from '../runtime/local/containment';

const stateSchema = z.object({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(400).max(10000).default(1200),
  height: z.number().int().min(300).max(10000).default(800),
  maximized: z.boolean().default(false),
});
export type WindowState = z.infer<typeof stateSchema>;

const FILE = 'window-state.json';

export function loadWindowState(home: string): WindowState {
  const file = path.join(home, FILE);
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    // Never saved yet: the defaults, silently. Anything else is said, and the window still opens.
    if (errnoOf(err) !== 'ENOENT') process.stderr.write(`cairn: ${FILE} could not be read (${errnoOf(err)}); the window opens at its default size.\n`);
  }
  if (text !== null) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      setAsideDamaged(file, 'it is not JSON');
    }
    const parsed = stateSchema.safeParse(value);
    if (parsed.success) return parsed.data;
  }
  return stateSchema.parse({});
}

export function saveWindowState(home: string, state: WindowState): void {
  try {
    writeOwnFileSync(path.join(home, FILE), `${JSON.stringify(state)}\n`);
  } catch (err) {
    // The window closes all the same; the next start opens it where it was last saved.
    process.stderr.write(`cairn: the window's size and place could not be saved (${errnoOf(err)}).\n`);
  }
}
