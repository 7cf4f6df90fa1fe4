/**
 * Remembers the main window's size, position and maximized state in <home>/window-state.json,
 * written whole (runtime/local/atomic-write.ts): a full disk leaves the last state, not an empty file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { writeOwnFileSync } from '../runtime/local/atomic-write';

const stateSchema = z.object({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(400).max(10000).default(1200),
  height: z.number().int().min(300).max(10000).default(800),
  maximized: z.boolean().default(false),
});
export type WindowState = z.infer<typeof stateSchema>;

export function loadWindowState(home: string): WindowState {
  try {
    const parsed = stateSchema.safeParse(JSON.parse(fs.readFileSync(path.join(home, 'window-state.json'), 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {}
  return stateSchema.parse({});
}

export function saveWindowState(home: string, state: WindowState): void {
  try {
    writeOwnFileSync(path.join(home, 'window-state.json'), `${JSON.stringify(state)}\n`);
  } catch {}
}
