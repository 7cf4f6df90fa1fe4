/**
 * Cairn's own files that were set aside because they did not parse (setAsideDamaged in
 * runtime/local/atomic-write.ts), for the app: found in every folder of Cairn's own files read that
 * way, listed with the start of what they hold so the person sees what was lost, and removed when
 * the person says so. Only a file of that list is ever removed.
 */
import { CairnError } from '../../common/errors';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SetAsideFileView } from '../../common/api/contract';
import { HARVEST_DIR, HARVEST_FILE_DIRS } from '../harvest/harvest-jobs';
import { listSetAside, type SetAsideFile } from '../runtime/local/atomic-write';
import { CONSOLIDATIONS_DIR } from '../consolidation/consolidation-store';

/** How much of a set-aside file the app shows. */
export const PREVIEW_BYTES = 4096;

/** A request about set-aside files a person can fix (one no longer there, say). */
export class SetAsideError extends CairnError {}

/** The folders of Cairn's own files that are set aside when they do not parse. */
function setAsideDirs(home: string): string[] {
  return [home, path.join(home, CONSOLIDATIONS_DIR), ...HARVEST_FILE_DIRS.map((d) => path.join(home, HARVEST_DIR, d))];
}

function preview(file: string): { text: string; cut: boolean } {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return { text: '', cut: false }; // removed since listed, or a link: listed without a preview
  }
  try {
    const buf = Buffer.alloc(PREVIEW_BYTES + 1);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    // A cut never splits a character: the decoder drops a partial one at the end.
    return { text: new TextDecoder('utf-8', { fatal: false }).decode(buf.subarray(0, Math.min(n, PREVIEW_BYTES))).replace(/\uFFFD+$/, ''), cut: n > PREVIEW_BYTES };
  } finally {
    fs.closeSync(fd);
  }
}

function view(home: string, found: SetAsideFile): SetAsideFileView {
  const { text, cut } = preview(found.aside);
  return { aside: found.aside, file: path.relative(home, found.file).split(path.sep).join('/'), at: found.at.toISOString(), bytes: found.bytes, preview: text, cut };
}

/** Every set-aside file of the home, newest first. */
export function listSetAsideFiles(home: string): SetAsideFileView[] {
  return listSetAside(setAsideDirs(home)).map((f) => view(home, f));
}

/** Removes one set-aside file, named as listSetAsideFiles gave it; what was done, in words. */
export function removeSetAsideFile(home: string, aside: string): string {
  const found = listSetAside(setAsideDirs(home)).find((f) => f.aside === aside);
  if (!found) throw new SetAsideError(`${path.basename(aside)} is no longer there (removed already?).`);
  fs.rmSync(found.aside, { force: true });
  return `Removed ${path.basename(found.aside)}.`;
}
