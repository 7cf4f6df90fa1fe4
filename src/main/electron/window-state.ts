/** Remembers the main window's size, position and maximized state in <home>/window-state.json. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';

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
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(home, 'window-state.json'), `${JSON.stringify(state)}\n`, { mode: 0o600 });
  } catch {}
}
