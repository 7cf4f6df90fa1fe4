/**
 * Unsaved text outlives the page: while the open file's text differs from what it was based on, it
 * is kept in this browser's localStorage (keyed by workspace and path, with the sha256 it was based
 * on) and dropped once it is saved, discarded in the editor, or the editor is left with "Discard".
 * A reload, a crash or a closed tab loses nothing: opening the file again offers the text back.
 *
 * Invariants: a kept draft never clobbers. It comes back on the sha256 it was based on, with that
 * version's text, so if the file changed meanwhile, saving it is a conflict and the editor's
 * conflict flow applies (a three-way merge against that text, Reload, Overwrite after a
 * confirmation, Compare), exactly as for an edit that was never interrupted. A save that succeeds
 * drops the kept draft in its own handler (`saved`), not in a later effect, so a draft is never
 * found kept after its save, and never offered back on a reload.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { relativeTime } from '../../lib/relative-time';

/** What the editor holds: the text its draft is based on and that text's sha256 (null: no file yet). */
export interface DraftBase {
  base: string;
  sha256: string | null;
  /**
   * The text of the version at `sha256`, the base of a three-way merge with the file on disk
   * (it differs from `base` when a kept draft came back on a file changed since); null: not known.
   */
  versionText: string | null;
}

interface KeptDraft {
  text: string;
  baseSha256: string | null;
  /** The text at baseSha256 (null: not known, as in drafts kept before it was stored). */
  baseText: string | null;
  keptAt: string;
}

const PREFIX = 'cairn.draft:';
/** The keys whose unsaved text is in storage right now. */
const keptNow = new Set<string>();

export function draftKey(workspaceId: string | null, path: string): string {
  return `${PREFIX}${workspaceId ?? 'global'}:${path}`;
}

const draftStore = {
  get(key: string): KeptDraft | null {
    try {
      const raw = localStorage.getItem(key);
      if (!raw) return null;
      const v = JSON.parse(raw) as Partial<KeptDraft>;
      if (typeof v.text !== 'string' || (v.baseSha256 !== null && typeof v.baseSha256 !== 'string') || typeof v.keptAt !== 'string') return null;
      return { text: v.text, baseSha256: v.baseSha256, baseText: typeof v.baseText === 'string' ? v.baseText : null, keptAt: v.keptAt };
    } catch {
      return null;
    }
  },
  put(key: string, draft: KeptDraft): void {
    try {
      localStorage.setItem(key, JSON.stringify(draft));
      keptNow.add(key);
    } catch {
      keptNow.delete(key); // full, or storage off: the page then asks before it is left
    }
  },
  remove(key: string): void {
    keptNow.delete(key);
    try {
      localStorage.removeItem(key);
    } catch {
      // storage refused: nothing was kept there to remove
    }
  },
};

/**
 * Whether an open editor's unsaved text is kept in the browser right now, so leaving the page loses
 * nothing. (Other unsaved things, such as a Settings form, are never kept: false for them.)
 */
export function unsavedTextIsKept(): boolean {
  return keptNow.size > 0;
}

/**
 * Editors open per key. Leaving an editor drops its kept draft (in the app that happens only after
 * "Discard"), but a moment later: React's development mode unmounts and mounts every component once
 * more, and the draft must survive that.
 */
const openEditors = new Map<string, number>();

export interface UseDraft {
  /**
   * What to show for the file just read when it is opened: the kept draft, on the sha256 it was
   * based on, if there is one that differs from the file; else the file.
   */
  offer(doc: { content: string; sha256: string | null }): DraftBase & { draft: string };
  /** The kept text of a file that is gone when it is opened (the editor's deleted-file flow takes it), else null. */
  offerGone(): string | null;
  /** A sentence while a draft that came back is unsaved, else null. */
  notice: string | null;
  /** Drops the draft that came back: the editor shows the file as it is now. */
  discard(): void;
  /** The draft was just saved: drops the kept copy now, in the save's own handler. */
  saved(): void;
}

export function useDraft(workspaceId: string | null, path: string, loaded: DraftBase | null, draft: string, setLoaded: (l: DraftBase) => void, setDraft: (d: string) => void): UseDraft {
  const key = draftKey(workspaceId, path);
  const [restored, setRestored] = useState<{ keptAt: string; changed: boolean; current: DraftBase } | null>(null);
  const keptAt = useRef<string | null>(null);

  useEffect(() => {
    openEditors.set(key, (openEditors.get(key) ?? 0) + 1);
    return () => {
      openEditors.set(key, (openEditors.get(key) ?? 1) - 1);
      queueMicrotask(() => {
        if ((openEditors.get(key) ?? 0) > 0) return;
        openEditors.delete(key);
        draftStore.remove(key);
      });
    };
  }, [key]);

  // Kept while it differs from its base; gone once saved, reloaded or discarded.
  useEffect(() => {
    if (!loaded) return;
    if (draft === loaded.base) {
      keptAt.current = null;
      draftStore.remove(key);
      setRestored(null);
      return;
    }
    keptAt.current ??= new Date().toISOString();
    draftStore.put(key, { text: draft, baseSha256: loaded.sha256, baseText: loaded.versionText, keptAt: keptAt.current });
  }, [key, loaded, draft]);

  const offer = useCallback(
    (doc: { content: string; sha256: string | null }) => {
      const kept = draftStore.get(key);
      const current = { base: doc.content, sha256: doc.sha256, versionText: doc.content };
      if (!kept || kept.text === doc.content) return { ...current, draft: doc.content };
      keptAt.current = kept.keptAt;
      const changed = kept.baseSha256 !== doc.sha256;
      setRestored({ keptAt: kept.keptAt, changed, current });
      return { base: doc.content, sha256: kept.baseSha256, versionText: changed ? kept.baseText : doc.content, draft: kept.text };
    },
    [key],
  );

  const offerGone = useCallback(() => {
    const kept = draftStore.get(key);
    if (!kept) return null;
    keptAt.current = kept.keptAt;
    return kept.text;
  }, [key]);

  const discard = useCallback(() => {
    if (!restored) return;
    setRestored(null);
    setLoaded(restored.current);
    setDraft(restored.current.base);
  }, [restored, setLoaded, setDraft]);

  const saved = useCallback(() => {
    keptAt.current = null;
    draftStore.remove(key);
    setRestored(null);
  }, [key]);

  const dirty = loaded !== null && draft !== loaded.base;
  let notice: string | null = null;
  if (restored && dirty) {
    const kept = `Your unsaved text (kept ${relativeTime(restored.keptAt) ?? 'earlier'}) is back`;
    notice = restored.changed ? `${kept}, but the file has changed since: saving will ask what to keep.` : `${kept}. It is not saved yet.`;
  }
  return { offer, offerGone, notice, discard, saved };
}
