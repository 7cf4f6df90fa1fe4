/**
 * The open memory file: a CodeMirror Markdown editor (frontmatter included) with a dirty marker,
 * Save (Ctrl/Cmd+S), a safe rendered preview, and the file's stats and pin.
 *
 * Invariants: every save carries the sha256 the draft was based on, so a change made since (by an
 * agent, outside Cairn, another window) comes back as a conflict, never a silent clobber. On a
 * conflict the draft is kept until the person chooses. When the text of the draft's base is known
 * (use-draft.ts keeps it with a kept draft), the draft is merged three ways with the disk
 * (three-way-merge.ts): edits that do not overlap are shown as the merge and saved only by "Save
 * merged" (or taken into the editor by "Keep editing"); overlapping ones are resolved piece by
 * piece in Compare (MergePanel.tsx). Always offered: Reload (discard mine, with Undo in a toast
 * that brings the draft back), Overwrite (keep mine, after a confirmation), and Compare.
 * A save that succeeds drops the kept draft in the same handler. A clean editor follows changes
 * on disk by itself.
 * What the scanners flag is shown before saving, and the person may still save. Hidden text (what a
 * person cannot see and an agent still reads) is drawn as visible placeholders (hidden-chars.ts). History shows the
 * file's versions (features/history): a restore is confirmed first, says so when it discards
 * unsaved edits, and the editor then shows the restored content.
 * A file deleted under unsaved edits (seen live, at save, or when it is read again) keeps the
 * draft: the banner says who deleted it and offers "Keep my text as a new file" (the API's create,
 * as the person, never over a file made since) or "Close" (discard). Opened when already gone, the
 * editor says so instead of a read error.
 * A memory file in a sync conflict (changed here and on another machine, the other side waiting in
 * the Inbox) shows its own banner while that item is pending (sync-conflict.tsx): Compare puts this
 * machine's text against the other machine's piece by piece, and each choice decides the item too.
 * The text comes from an EditorSource: memory by default (memorySource); other agents' files
 * (features/agent-files) give their own read, save, create and history, with the same conflict flow.
 * A new file (New memory: `newFileText`) is not on disk until its first Save, which creates it as
 * the person (a save on no sha256: a file of that name made meanwhile is a conflict, never
 * overwritten); until then the head says it is new and not saved, nothing is read, and closing it
 * leaves nothing behind (so it never reaches agents' context, nor counts as used, unsaved).
 */
import { markdown } from '@codemirror/lang-markdown';
import { EditorView } from '@codemirror/view';
import CodeMirror from '@uiw/react-codemirror';
import { AlertTriangle, Eye, FilePlus, GitCompare, GitMerge, History as HistoryIcon, Loader2, Pencil, Pin, PinOff, RefreshCw, RotateCcw, Save, X } from 'lucide-react';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { z } from 'zod';
import type { saveResultSchema, scanWarningSchema } from '../../../common/api/contract';
import { errors } from '../../../common/memory/texts';
import { errorMessage, useApi } from '../../api/api-context';
import type { ApiClient } from '../../api/client';
import { relativeTime } from '../../lib/relative-time';
import { Stats } from '../../lib/Stats';
import { badgeKey, badgeStore } from '../changes/badge-store';
import { onChangeEvent } from '../changes/use-change-stream';
import { ConfirmDialog } from '../dialogs/Dialog';
import { HistoryPanel } from '../history/HistoryPanel';
import { Toast } from '../history/Toast';
import type { MemoryFile } from '../tree/tree-model';
import { DiffView } from './DiffView';
import { MergePreview, MergeResolver } from './MergePanel';
import { showHiddenText } from './hidden-chars';
import { Preview } from './Preview';
import { mergedText, mergeThreeWay, mergeTwoWay, type Resolution, type ThreeWayMerge } from './three-way-merge';
import { settleSyncConflict, SYNC_SIDES, syncConflictText, useSyncConflict } from './sync-conflict';
import { useChangedLines } from './changed-lines';
import { useDraft, type DraftBase } from './use-draft';

type ScanWarning = z.infer<typeof scanWarningSchema>;
type SaveResult = z.infer<typeof saveResultSchema>;

/**
 * Where the open file's text comes from and goes to. Every save carries the sha256 its text was
 * based on (null: create a file that is absent), and a changed file answers a conflict.
 */
export interface EditorSource {
  read(): Promise<{ content: string; sha256: string | null }>;
  save(content: string, expectedSha256: string | null): Promise<SaveResult>;
  /** Whether a read's error message means the file is gone (the deleted-file flow, not an error). */
  isGone(message: string): boolean;
  /** "Keep my text as a new file": creates it again, never over a file made since; an error message, or null. */
  create(content: string): Promise<string | null>;
  /** What the editor says of a file that is gone (memory: Recently deleted can bring it back). */
  goneHint?: string;
  /** The file's history (History), in place of memory's version history. */
  history?: (props: { dirty: boolean; onRestored: (message: string) => void }) => ReactNode;
  /**
   * Where a file with no change stream says it changed on disk: the listener gets its sha256 now
   * (null: gone or unreadable). Memory files follow the change stream instead.
   */
  onChanged?: (listener: (sha256: string | null) => void) => () => void;
}

/** A memory file as the editor reads and saves it (memory.read, memory.save, memory.create). */
function memorySource(client: ApiClient, workspaceId: string | null, path: string): EditorSource {
  return {
    read: () => client.memory.read({ workspaceId, path }),
    save: (content, expectedSha256) => client.memory.save({ workspaceId, path, content, expectedSha256 }),
    isGone: (message) => message === errors.notFound(path),
    create: async (content) => {
      const result = await client.memory.create({ workspaceId, path, kind: 'file', content });
      return result.status === 'error' ? result.message : null;
    },
  };
}
type ConflictKind = 'changed' | 'deleted' | 'exists';
type Actor = keyof typeof ACTOR_WORDS;

/**
 * The content the draft is based on, and its sha256 (null: the file is gone, saving creates it);
 * versionText is the text at that sha256, a merge's base (null: not known).
 */
type Loaded = DraftBase;

/** A save that found the file changed: the file on disk now and the draft merged with it. */
interface Merging {
  disk: { content: string; sha256: string | null };
  merge: ThreeWayMerge;
  resolutions: Array<Resolution | undefined>;
}

/** How long the toast offering to undo a Reload stays. */
const RELOAD_UNDO_MS = 10_000;

export interface FileEditorProps {
  workspaceId: string | null;
  path: string;
  /** The file's entry in the list (stats, pin, flags); undefined while the list catches up. */
  file: MemoryFile | undefined;
  dark: boolean;
  previewByDefault: boolean;
  onClose: () => void;
  onDirtyChange: (dirty: boolean) => void;
  onPin: (file: MemoryFile, pinned: boolean) => void;
  /** Another kind of file than memory (memorySource when absent); keep it stable across renders. */
  source?: EditorSource;
  /** Shown under the head (another file's facts, where memory shows its stats). */
  info?: ReactNode;
  /** More buttons, first in the head's tools. */
  tools?: ReactNode;
  /** The lines selected in the editor (1-based, inclusive), as the selection changes. */
  onSelectedLines?: (ranges: Array<[number, number]>) => void;
  /** A file the person is making, not on disk yet: it opens with this text and Save creates it. */
  newFileText?: string;
}

const ACTOR_WORDS = { agent: 'by an agent', external: 'outside Cairn', person: 'in another Cairn window', sync: 'on another machine (sync)' } as const;

function conflictText(kind: ConflictKind, by: keyof typeof ACTOR_WORDS | null): string {
  switch (kind) {
    case 'changed':
      return `This file was changed ${by ? ACTOR_WORDS[by] : 'by someone else'} since you opened it. Your edits are not saved yet.`;
    case 'deleted':
      return `This file was deleted ${by ? ACTOR_WORDS[by] : ''}${by ? ' ' : ''}since you opened it. Your text is still here, not saved.`;
    case 'exists':
      return 'A file with this name already exists. Your edits are not saved yet.';
  }
}

/** What the banner adds when the draft was merged with the file on disk. */
function mergeSummary(merge: ThreeWayMerge): string {
  if (merge.conflicts === 0) return 'Your edits and these changes do not overlap: below is the merge of both, which Save merged writes.';
  const places = merge.conflicts === 1 ? 'one place' : `${merge.conflicts} places`;
  return `You both changed the same lines in ${places}: Compare resolves them piece by piece; the rest is merged.`;
}

export function FileEditor({ workspaceId, path, file, dark, previewByDefault, onClose, onDirtyChange, onPin, source, info, tools, onSelectedLines, newFileText }: FileEditorProps) {
  const { client } = useApi();
  const src = useMemo(() => source ?? memorySource(client, workspaceId, path), [source, client, workspaceId, path]);
  const selectedLines = useRef(onSelectedLines);
  selectedLines.current = onSelectedLines;
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  // The lines an agent's edit changed, when the clean editor followed the disk.
  const changedLines = useChangedLines(loaded?.base ?? null);
  const [preview, setPreview] = useState(previewByDefault);
  const [showHistory, setShowHistory] = useState(false);
  const [saving, setSaving] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<ConflictKind | null>(null);
  const [theirs, setTheirs] = useState<string | null>(null);
  const [merging, setMerging] = useState<Merging | null>(null);
  /** Compare on a merge with conflicts: the pieces to resolve. */
  const [resolving, setResolving] = useState(false);
  /** What a Reload discarded, while its Undo is offered. */
  const [reloaded, setReloaded] = useState<{ draft: string; loaded: Loaded; at: number } | null>(null);
  const [confirmOverwrite, setConfirmOverwrite] = useState(false);
  const [warnings, setWarnings] = useState<ScanWarning[] | null>(null);
  /** Who deleted the file, when it is known to be gone (from the change event, or the history). */
  const [deletedBy, setDeletedBy] = useState<Actor | null>(null);
  /** Opened (or read again) when the file was already gone, with no unsaved text to keep. */
  const [gone, setGone] = useState(false);
  const dirty = loaded !== null && draft !== loaded.base;
  /** A new file not saved yet: Save creates it, even with the text it opened with. */
  const unsavedNew = newFileText !== undefined && loaded !== null && loaded.sha256 === null && conflict === null;
  const key = file ? badgeKey(workspaceId, file.scope, path) : badgeKey(workspaceId, (path.split('/')[2] ?? 'global') as MemoryFile['scope'], path);

  const section = useRef<HTMLElement>(null);
  const state = useRef({ dirty, loaded });
  state.current = { dirty, loaded };
  // A read that ends after the editor closed (another file opened, the window torn down) changes nothing.
  const open = useRef(true);
  useEffect(() => {
    open.current = true;
    return () => {
      open.current = false;
    };
  }, []);

  /** Who deleted the file last, as its history says (null: not recorded). */
  const whoDeleted = useCallback(async (): Promise<Actor | null> => {
    if (source) return null; // memory's history only
    try {
      return (await client.history.deleted({ workspaceId, path, limit: 1 })).versions[0]?.actor ?? null;
    } catch {
      return null;
    }
  }, [client, workspaceId, path, source]);

  const kept = useDraft(workspaceId, path, loaded, draft, setLoaded, setDraft);

  /** The Inbox item holding the other machine's side, while the file is in a sync conflict. */
  const syncItem = useSyncConflict(workspaceId, path, !source);
  const [syncResolving, setSyncResolving] = useState(false);
  const [syncResolutions, setSyncResolutions] = useState<Array<Resolution | undefined>>([]);
  const [syncBusy, setSyncBusy] = useState(false);
  const theirsSynced = syncItem?.change?.after ?? null;
  const syncMerge = useMemo(() => (theirsSynced === null ? null : mergeTwoWay(draft, theirsSynced)), [draft, theirsSynced]);
  const syncMerged = syncMerge ? mergedText(syncMerge, syncResolutions) : null;

  /**
   * Reads the file; when opening it, unsaved text kept from before comes back (use-draft.ts).
   * True when the file was read and shown (false: an error, or the file is gone).
   */
  const load = useCallback(async (opening = false): Promise<boolean> => {
    setLoadError(null);
    if (opening && newFileText !== undefined) {
      // Nothing to read: the file is made by its first Save (text kept from before a reload comes back).
      const shown = kept.offer({ content: newFileText, sha256: null });
      setLoaded({ base: shown.base, sha256: null, versionText: shown.versionText });
      setDraft(shown.draft);
      return true;
    }
    try {
      const doc = await src.read();
      if (!open.current) return false;
      const shown = opening ? kept.offer(doc) : { base: doc.content, sha256: doc.sha256, versionText: doc.content, draft: doc.content };
      setLoaded({ base: shown.base, sha256: shown.sha256, versionText: shown.versionText });
      setDraft(shown.draft);
      setConflict(null);
      setTheirs(null);
      setMerging(null);
      setResolving(false);
      setGone(false);
      badgeStore.clear(key);
      return true;
    } catch (err) {
      if (!open.current) return false;
      const message = errorMessage(err);
      if (!src.isGone(message)) {
        setLoadError(message);
        return false;
      }
      // Gone: unsaved text stays with the choice of keeping it; without any, the editor says so.
      setTheirs(null);
      const by = await whoDeleted();
      if (!open.current) return false;
      setDeletedBy(by);
      // Text kept from before the page was reloaded counts as unsaved text here.
      const keptText = opening ? kept.offerGone() : null;
      if (keptText !== null) {
        setLoaded({ base: '', sha256: null, versionText: '' });
        setDraft(keptText);
      }
      if (state.current.dirty || keptText !== null) setConflict('deleted');
      else setGone(true);
      return false;
    }
  }, [src, key, whoDeleted, kept.offer, kept.offerGone, newFileText]);

  useEffect(() => {
    setLoaded(null);
    setPreview(previewByDefault);
    setStatus(null);
    setSaveError(null);
    void load(true);
    // previewByDefault applies when a file is opened, not when the setting changes under it.
  }, [load]);

  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);

  // The conflict decided (here, in the Inbox, by a command): Compare ends, and a clean editor reads
  // the file again (an approval is the person's write, which the change stream leaves to its writer).
  const syncItemId = syncItem?.id ?? null;
  const shownSyncItem = useRef<string | null>(null);
  useEffect(() => {
    const was = shownSyncItem.current;
    shownSyncItem.current = syncItemId;
    setSyncResolving(false);
    setSyncResolutions([]);
    if (was !== null && syncItemId === null && !state.current.dirty) void load();
  }, [syncItemId, load]);

  // Typing after a Reload makes new text that Undo would throw away: its offer ends there.
  useEffect(() => {
    if (dirty) setReloaded(null);
  }, [dirty]);

  // Another kind of file, seen changed on disk: the same, by its sha256.
  useEffect(
    () =>
      src.onChanged?.((sha256) => {
        const { dirty: unsaved, loaded: base } = state.current;
        if (!base || sha256 === base.sha256) return;
        if (unsaved) setStatus('Changed on disk while you edit; saving will ask what to keep.');
        else void load().then(() => setStatus('Updated: the file changed on disk.'));
      }),
    [src, load],
  );

  // A clean editor follows the file on disk; a dirty one is told at save time (the sha256 check).
  useEffect(
    () =>
      onChangeEvent((event, view) => {
        if (view !== workspaceId || event.path !== path || event.actor === 'person') return;
        if (state.current.dirty && event.op === 'delete') {
          setDeletedBy(event.actor);
          setConflict('deleted');
          return;
        }
        if (state.current.dirty) {
          setStatus(`Changed ${ACTOR_WORDS[event.actor]} while you edit; saving will ask what to keep.`);
          return;
        }
        if (event.op === 'delete') setStatus(`This file was deleted ${ACTOR_WORDS[event.actor]}.`);
        else {
          // Where it changed is marked in the text and said (changed-lines.tsx), in place of a bare "Updated".
          changedLines.expect(ACTOR_WORDS[event.actor]);
          setStatus(null);
          void load();
        }
      }),
    [workspaceId, path, load, changedLines.expect],
  );

  /** The draft merged with the file on disk now, when the draft's base text is known (else null). */
  const mergeWithDisk = useCallback(
    async (mine: string, base: Loaded): Promise<Merging | null> => {
      if (base.versionText === null) return null;
      try {
        const disk = await src.read();
        return { disk, merge: mergeThreeWay(base.versionText, mine, disk.content), resolutions: [] };
      } catch {
        return null; // gone or unreadable now: the plain conflict flow
      }
    },
    [src],
  );

  /**
   * Saves `content` on `expected`; `merged`: it is a merge of the draft with the disk, which the
   * editor then shows. Success drops the kept draft here, in the same step as the save.
   */
  const doSave = useCallback(
    async (expected: string | null, content: string = draft, merged = false) => {
      setSaving(true);
      setSaveError(null);
      try {
        const result = await src.save(content, expected);
        if (result.status === 'ok') {
          kept.saved();
          setLoaded({ base: content, sha256: result.sha256, versionText: content });
          if (merged) setDraft(content);
          setConflict(null);
          setTheirs(null);
          setMerging(null);
          setResolving(false);
          setStatus(merged ? 'Saved the merge.' : expected === null && newFileText !== undefined ? `Created ${path}.` : 'Saved.');
          badgeStore.clear(key);
        } else if (result.status === 'conflict') {
          if (result.kind === 'deleted') setDeletedBy(badgeStore.lastActor(key) ?? (await whoDeleted()));
          const merge = result.kind === 'deleted' || !loaded ? null : await mergeWithDisk(draft, loaded);
          setMerging(merge);
          setResolving(false);
          setTheirs(null);
          setConflict(result.kind);
          setStatus(null);
        } else setSaveError(result.message);
      } catch (err) {
        setSaveError(errorMessage(err));
      } finally {
        setSaving(false);
      }
    },
    [src, draft, loaded, key, whoDeleted, mergeWithDisk, kept.saved, newFileText, path],
  );

  /** The merge's text once every conflict is resolved (null: not yet, or no merge). */
  const merged = merging ? mergedText(merging.merge, merging.resolutions) : null;

  /** "Keep editing": the merge goes into the editor, based on the file on disk, not saved yet. */
  const keepEditingMerged = () => {
    if (!merging || merged === null) return;
    setLoaded({ base: merging.disk.content, sha256: merging.disk.sha256, versionText: merging.disk.content });
    setDraft(merged);
    setConflict(null);
    setMerging(null);
    setResolving(false);
    setTheirs(null);
    setStatus('The merge is in the editor, not saved yet.');
  };

  /** "Reload (discard mine)": the file as it is on disk, with Undo bringing the draft back. */
  const reload = async () => {
    const before = loaded ? { draft, loaded } : null;
    if ((await load()) && before) setReloaded({ ...before, at: Date.now() });
  };

  const undoReload = () => {
    if (!reloaded) return;
    setLoaded(reloaded.loaded);
    setDraft(reloaded.draft);
    setReloaded(null);
    setStatus('Your text is back, not saved. Saving merges it with the file on disk.');
    // The toast that held the focus goes: the focus goes back to the editor, not to the page (its
    // region, not the text itself: focusing CodeMirror while it takes the draft back makes it
    // update within its own update where a DOM reports selection changes at once).
    section.current?.focus();
  };

  /** "Keep my text as a new file": created again at its path, as the person; never over a file made since. */
  const keepAsNew = async () => {
    setSaving(true);
    setSaveError(null);
    try {
      const failure = await src.create(draft);
      if (failure) {
        setSaveError(failure);
        return;
      }
      await load();
      setStatus('Kept your text: the file exists again.');
    } catch (err) {
      setSaveError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  };

  /** "Close": the person chose to discard the text, so closing does not ask again. */
  const discardAndClose = () => {
    onDirtyChange(false);
    onClose();
  };

  const save = useCallback(async () => {
    if (!loaded || saving) return;
    const flags = await client.memory.scan({ content: draft }).catch(() => []);
    if (flags.length > 0) {
      setWarnings(flags);
      return;
    }
    await doSave(loaded.sha256);
  }, [client, draft, loaded, saving, doSave]);

  const compare = () => {
    if (merging && merging.merge.conflicts > 0) setResolving((r) => !r);
    else if (theirs === null) void showTheirs();
    else setTheirs(null);
  };
  const comparing = theirs !== null || resolving;

  const showTheirs = async () => {
    try {
      setTheirs((await src.read()).content);
    } catch {
      setTheirs(''); // deleted: nothing on disk
    }
  };

  const overwrite = async () => {
    setConfirmOverwrite(false);
    let current: string | null;
    try {
      current = (await src.read()).sha256;
    } catch {
      current = null; // gone: saving creates it again
    }
    await doSave(current);
  };

  /** Settles the sync conflict: `text` written (unless it is already this machine's), the Inbox item decided. */
  const settleSync = async (text: string | 'keep') => {
    if (!syncItem || !loaded) return;
    setSyncBusy(true);
    setSaveError(null);
    try {
      const failure = text === 'keep' ? ((r) => (r.status === 'ok' ? null : r.message))(await client.inbox.reject({ workspaceId, id: syncItem.id })) : await settleSyncConflict(client, workspaceId, syncItem, text, loaded.sha256);
      if (failure) {
        setSaveError(failure);
        return;
      }
      await load();
      setStatus(text === 'keep' ? "Kept this machine's text; the other machine's was declined." : text === theirsSynced ? "Took the other machine's text." : 'Saved the merge of both machines.');
    } catch (err) {
      setSaveError(errorMessage(err));
    } finally {
      setSyncBusy(false);
    }
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void save();
    }
  };

  // No setext headings: a frontmatter's closing `---` would turn the line above it into a heading.
  const extensions = useMemo(
    () => [
      markdown({ extensions: { remove: ['SetextHeading'] } }),
      EditorView.lineWrapping,
      showHiddenText(),
      EditorView.contentAttributes.of({ 'aria-label': `Content of ${path}` }),
      changedLines.extension,
      EditorView.updateListener.of((u) => {
        if (!selectedLines.current || !(u.selectionSet || u.docChanged)) return;
        const doc = u.state.doc;
        const ranges = u.state.selection.ranges.filter((r) => !r.empty).map((r): [number, number] => [doc.lineAt(r.from).number, doc.lineAt(r.to > r.from && doc.lineAt(r.to).from === r.to ? r.to - 1 : r.to).number]);
        selectedLines.current(ranges);
      }),
    ],
    [path, changedLines.extension],
  );
  const name = path.slice(path.lastIndexOf('/') + 1);
  const lastActor = badgeStore.lastActor(key);

  return (
    <section ref={section} className="editor" aria-label={`Editor: ${path}`} tabIndex={-1} onKeyDown={onKeyDown}>
      <header className="editor-head">
        <div className="editor-title">
          <h2 title={path}>
            <span className="editor-name">{name}</span>
            {dirty && (
              <span className="dirty" title="Unsaved changes" aria-label="Unsaved changes">
                {' '}●
              </span>
            )}
            {unsavedNew && (
              <span className="badge new-file" title="Not on disk yet: Save creates it">
                New, not saved
              </span>
            )}
          </h2>
          <div className="editor-path">{path}</div>
        </div>
        <div className="editor-tools" data-keep-clear>
          {tools}
          {file && (
            <button type="button" className="btn" onClick={() => onPin(file, !file.pinned)} aria-pressed={file.pinned}>
              {file.pinned ? <PinOff size={14} aria-hidden /> : <Pin size={14} aria-hidden />} {file.pinned ? 'Unpin' : 'Pin'}
            </button>
          )}
          {!showHistory && (
            <button type="button" className="btn" onClick={() => setPreview((p) => !p)} aria-pressed={preview}>
              {preview ? <Pencil size={14} aria-hidden /> : <Eye size={14} aria-hidden />} {preview ? 'Edit' : 'Preview'}
            </button>
          )}
          <button type="button" className="btn" onClick={() => setShowHistory((h) => !h)} aria-pressed={showHistory} title={showHistory ? 'Back to the file' : "The file's versions: compare and restore"}>
            <HistoryIcon size={14} aria-hidden /> History
          </button>
          <button type="button" className="btn primary" onClick={() => void save()} disabled={!(dirty || unsavedNew) || saving || conflict !== null} title={unsavedNew ? 'Create the file (Ctrl+S)' : 'Save (Ctrl+S)'}>
            {saving ? <Loader2 size={14} className="spin" aria-hidden /> : <Save size={14} aria-hidden />} Save
          </button>
          <button type="button" className="icon-btn" onClick={onClose} aria-label="Close file" title="Close">
            <X size={16} aria-hidden />
          </button>
        </div>
      </header>
      {file && (
        <Stats
          rows={[
            ['Uses', file.accessCount],
            ['Last used', relativeTime(file.lastAccessedAt) ?? 'never'],
            ['Last written', `${relativeTime(file.lastWriteAt) ?? 'unknown'}${file.lastWriteBy ? ` by ${file.lastWriteBy === 'person' ? 'you' : file.lastWriteBy === 'agent' ? 'an agent' : 'an outside edit'}` : ''}`],
            ['Pinned', file.pinned ? 'yes' : 'no'],
            ['Size', `${file.size.toLocaleString()} B`],
          ]}
        />
      )}
      {info}
      {file && file.flags.length > 0 && (
        <div className="notice warn">
          <AlertTriangle size={14} aria-hidden /> The scanners flag this file: {[...new Set(file.flags.map((f) => `${f.rule} (line ${f.line})`))].join(', ')}.
        </div>
      )}
      {conflict === 'deleted' && (
        <div className="conflict" role="alert">
          <p>
            <AlertTriangle size={16} aria-hidden /> {conflictText('deleted', deletedBy)}
          </p>
          <div className="conflict-actions">
            <button type="button" className="btn primary" onClick={() => void keepAsNew()} disabled={saving}>
              {saving ? <Loader2 size={14} className="spin" aria-hidden /> : <FilePlus size={14} aria-hidden />} Keep my text as a new file
            </button>
            <button type="button" className="btn danger" onClick={discardAndClose}>
              <X size={14} aria-hidden /> Close (discard my text)
            </button>
          </div>
        </div>
      )}
      {conflict && conflict !== 'deleted' && (
        <div className="conflict" role="alert">
          <p>
            <AlertTriangle size={16} aria-hidden /> {conflictText(conflict, lastActor)}
          </p>
          {merging && <p className="merge-summary">{mergeSummary(merging.merge)}</p>}
          <div className="conflict-actions" data-keep-clear>
            {merging && (merging.merge.conflicts === 0 || resolving) && (
              <button type="button" className="btn primary" onClick={() => merged !== null && void doSave(merging.disk.sha256, merged, true)} disabled={merged === null || saving} title={merged === null ? 'Resolve every conflict first' : undefined}>
                {saving ? <Loader2 size={14} className="spin" aria-hidden /> : <GitMerge size={14} aria-hidden />} Save merged
              </button>
            )}
            {merging && merging.merge.conflicts === 0 && (
              <button type="button" className="btn" onClick={keepEditingMerged}>
                <Pencil size={14} aria-hidden /> Keep editing
              </button>
            )}
            <button type="button" className="btn" onClick={() => void reload()}>
              <RefreshCw size={14} aria-hidden /> Reload (discard mine)
            </button>
            <button type="button" className="btn danger" onClick={() => setConfirmOverwrite(true)}>
              <Save size={14} aria-hidden /> Overwrite (keep mine)
            </button>
            <button type="button" className="btn" onClick={compare} aria-pressed={comparing}>
              <GitCompare size={14} aria-hidden /> {comparing ? 'Hide comparison' : 'Compare'}
            </button>
          </div>
        </div>
      )}
      {syncItem && !conflict && loaded && (
        <div className="conflict" role="alert" aria-label="Sync conflict">
          <p>
            <AlertTriangle size={16} aria-hidden /> {syncConflictText(syncItem)}
          </p>
          {syncResolving && syncMerge && <p className="merge-summary">{syncMerge.conflicts === 1 ? 'The machines differ in one place' : `The machines differ in ${syncMerge.conflicts} places`}: choose piece by piece, then Save merged.</p>}
          <div className="conflict-actions" data-keep-clear>
            {syncResolving && (
              <button type="button" className="btn primary" onClick={() => syncMerged !== null && void settleSync(syncMerged)} disabled={syncMerged === null || syncBusy} title={syncMerged === null ? 'Resolve every conflict first' : undefined}>
                {syncBusy ? <Loader2 size={14} className="spin" aria-hidden /> : <GitMerge size={14} aria-hidden />} Save merged
              </button>
            )}
            <button type="button" className="btn" onClick={() => void settleSync('keep')} disabled={syncBusy}>
              <Save size={14} aria-hidden /> Keep this machine&rsquo;s
            </button>
            {theirsSynced !== null && (
              <button type="button" className="btn" onClick={() => void settleSync(theirsSynced)} disabled={syncBusy}>
                <RefreshCw size={14} aria-hidden /> Take the other machine&rsquo;s
              </button>
            )}
            {syncMerge && (
              <button type="button" className="btn" onClick={() => setSyncResolving((r) => !r)} aria-pressed={syncResolving}>
                <GitCompare size={14} aria-hidden /> {syncResolving ? 'Hide comparison' : 'Compare'}
              </button>
            )}
          </div>
        </div>
      )}
      {saveError && (
        <div className="notice error" role="alert">
          {saveError}
        </div>
      )}
      {kept.notice && !conflict && (
        <div className="notice warn" role="status">
          {kept.notice}
          <button type="button" className="link" onClick={kept.discard}>Discard my text</button>
        </div>
      )}
      {!conflict && changedLines.notice}
      {status && !conflict && (
        <div className="notice" role="status">
          {status}
        </div>
      )}
      {unsavedNew && !status && (
        <div className="notice" role="status">
          A new file: Save creates it. Closing it without saving leaves nothing behind.
        </div>
      )}
      <div className="editor-body">
        {loadError ? (
          <div className="state error" role="alert">
            <p>Could not open {path}: {loadError}</p>
            <button type="button" className="btn" onClick={() => void load()}>
              <RefreshCw size={14} aria-hidden /> Retry
            </button>
          </div>
        ) : gone && !dirty ? (
          <div className="state" role="status">
            <p>
              {path} was deleted{deletedBy ? ` ${ACTOR_WORDS[deletedBy]}` : ''}. {src.goneHint ?? 'Recently deleted, under its scope in the tree, can bring it back.'}
            </p>
            <button type="button" className="btn" onClick={onClose}>
              <X size={14} aria-hidden /> Close
            </button>
          </div>
        ) : !loaded ? (
          <div className="state" role="status">
            <Loader2 size={16} className="spin" aria-hidden /> Opening…
          </div>
        ) : syncItem && syncResolving && syncMerge && !conflict ? (
          <MergeResolver merge={syncMerge} resolutions={syncResolutions} sides={SYNC_SIDES} onResolve={(i, r) => setSyncResolutions((rs) => Object.assign([...rs], { [i]: r }))} />
        ) : theirs !== null ? (
          <DiffView mine={draft} theirs={theirs} dark={dark} />
        ) : merging && conflict && resolving ? (
          <MergeResolver merge={merging.merge} resolutions={merging.resolutions} onResolve={(i, r) => setMerging((m) => m && { ...m, resolutions: Object.assign([...m.resolutions], { [i]: r }) })} />
        ) : merging && conflict && merging.merge.conflicts === 0 && merged !== null ? (
          <MergePreview merged={merged} disk={merging.disk.content} />
        ) : showHistory && src.history ? (
          src.history({
            dirty,
            onRestored: (message) => {
              setShowHistory(false);
              setSaveError(null);
              void load().then(() => setStatus(message));
            },
          })
        ) : showHistory ? (
          <HistoryPanel
            workspaceId={workspaceId}
            path={path}
            dirty={dirty}
            onRestored={(message) => {
              setShowHistory(false);
              setSaveError(null);
              void load().then(() => setStatus(message));
            }}
          />
        ) : preview ? (
          <Preview text={draft} />
        ) : (
          <CodeMirror value={draft} onChange={setDraft} extensions={extensions} theme={dark ? 'dark' : 'light'} basicSetup={{ foldGutter: false, highlightActiveLine: true, highlightSpecialChars: false }} height="100%" className="cm-host" />
        )}
      </div>
      {reloaded && (
        <div className="toast-region">
          <Toast
            key={reloaded.at}
            message="Reloaded: your unsaved text was discarded."
            durationMs={RELOAD_UNDO_MS}
            onDismiss={() => setReloaded(null)}
            action={
              <button type="button" className="btn toast-action" onClick={undoReload}>
                <RotateCcw size={14} aria-hidden /> Undo
              </button>
            }
          />
        </div>
      )}
      {warnings && (
        <ConfirmDialog
          title="Save a file the scanners flag?"
          confirmLabel="Save anyway"
          danger
          onCancel={() => setWarnings(null)}
          onConfirm={() => {
            setWarnings(null);
            void doSave(loaded?.sha256 ?? null);
          }}
        >
          <p>Agents read this file. The scanners found:</p>
          <ul>
            {warnings.map((w) => (
              <li key={`${w.rule}:${w.line}`}>{w.message}</li>
            ))}
          </ul>
        </ConfirmDialog>
      )}
      {confirmOverwrite && (
        <ConfirmDialog title={`Overwrite ${name}?`} confirmLabel="Overwrite" danger onCancel={() => setConfirmOverwrite(false)} onConfirm={() => void overwrite()}>
          <p>The version on disk is replaced by yours. What changed there since you opened the file is lost.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
