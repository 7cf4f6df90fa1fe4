/**
 * The version history of the open file: every recorded version, newest first (when,
 * who, how, lines added and removed); the selected one compared with the file as it is now (or
 * with what came just before it), and "Restore this version" after a confirmation. The list and
 * the comparison follow changes to the file live (the change stream's events for its path).
 *
 * Invariants: a restore is asked for first, and when the editor holds unsaved edits the question
 * says they are discarded; the restore is the person's change (recorded, so it can be undone in
 * turn); a version whose content was not recorded cannot be restored; "History incomplete since"
 * shows whenever the history says changes may be missing.
 */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, History as HistoryIcon, Loader2, RotateCcw } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { Version } from '../../../common/api/contract';
import { errorMessage, useApi } from '../../api/api-context';
import { listKeyIndex } from '../../lib/list-keys';
import { LoadFailed, Loading } from '../../lib/QueryState';
import { useAction } from '../../lib/use-action';
import { onChangeEvent, type ChangeEvent } from '../changes/use-change-stream';
import { ConfirmDialog } from '../dialogs/Dialog';
import { byWords, exactTime, linesShort, linesWords, opWords, restoredId, versionContent, versionLabel, whenText } from './history-words';
import { LineDiff } from './LineDiff';

/** Versions asked for at a time ("Show older versions" asks for this many more, up to the API's 500). */
const HISTORY_PAGE = 50;
const HISTORY_MAX = 500;

export interface HistoryPanelProps {
  workspaceId: string | null;
  path: string;
  /** The editor holds edits not saved yet (restoring discards them: the person is told first). */
  dirty: boolean;
  /** After a restore: the editor loads the file again and shows `message`. */
  onRestored: (message: string) => void;
}

/** Whether a change event concerns `path` (the file itself, a rename to or from it, or a directory above it). */
function touchesPath(e: Pick<ChangeEvent, 'path' | 'oldPath'>, path: string): boolean {
  const hits = (p: string | undefined) => p !== undefined && (p === path || path.startsWith(`${p}/`));
  return hits(e.path) || hits(e.oldPath);
}

type Compare = 'now' | 'change';

export function HistoryPanel({ workspaceId, path, dirty, onRestored }: HistoryPanelProps) {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const [limit, setLimit] = useState(HISTORY_PAGE);
  const list = useQuery({ ...orpc.history.list.queryOptions({ input: { workspaceId, path, limit } }), placeholderData: keepPreviousData });
  // What the file holds now (an error: it is gone, or cannot be read).
  const current = useQuery({ ...orpc.memory.read.queryOptions({ input: { workspaceId, path } }), retry: false });
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [compare, setCompare] = useState<Compare>('now');
  const text = useQuery({ ...orpc.history.read.queryOptions({ input: { workspaceId, id: selectedId ?? '-' } }), enabled: selectedId !== null });
  const [confirming, setConfirming] = useState(false);
  const restore = useAction();
  const listRef = useRef<HTMLDivElement>(null);
  const focusPending = useRef<string | null>(null);
  const name = path.slice(path.lastIndexOf('/') + 1);

  // Live: a change to this file (saved here, by an agent, another window) refreshes the list and "now".
  useEffect(
    () =>
      onChangeEvent((event, view) => {
        if (view !== workspaceId || !touchesPath(event, path)) return;
        void queryClient.invalidateQueries({ queryKey: orpc.history.list.key() });
        void queryClient.invalidateQueries({ queryKey: orpc.memory.read.key({ input: { workspaceId, path } }) });
      }),
    [queryClient, orpc, workspaceId, path],
  );

  const versions = useMemo(() => list.data?.versions ?? [], [list.data]);
  const byId = useMemo(() => new Map(versions.map((v) => [v.id, v])), [versions]);
  const selected = selectedId === null ? undefined : (byId.get(selectedId) ?? text.data?.version);

  // After a keyboard move, focus the option it went to.
  useEffect(() => {
    const id = focusPending.current;
    if (id === null) return;
    const el = listRef.current?.querySelector<HTMLElement>(`[data-version="${CSS.escape(id)}"]`);
    if (el) {
      focusPending.current = null;
      el.focus();
    }
  });

  const select = (id: string, focus = false) => {
    if (focus) focusPending.current = id;
    setSelectedId(id);
    restore.reset();
  };

  const onListKey = (e: React.KeyboardEvent) => {
    if (versions.length === 0) return;
    // From the option that has the focus (the selected one, or the first before any is chosen).
    const from = (e.target as HTMLElement).closest('[data-version]')?.getAttribute('data-version') ?? selectedId;
    const at = versions.findIndex((v) => v.id === from);
    const next = listKeyIndex(e.key, at, versions.length);
    if (next === null) return;
    e.preventDefault();
    select(versions[next]!.id, true);
  };

  const nowText = current.isSuccess ? current.data.content : current.isError ? null : undefined;
  const content = text.data ? versionContent(text.data) : undefined;
  const sameAsNow = content !== undefined && nowText !== undefined && content === nowText;
  const canRestore = text.isSuccess && content !== undefined && content !== null && !sameAsNow && text.data.version.id === selectedId;

  const doRestore = () =>
    restore.run(async () => {
      if (!selected) return;
      const result = await client.history.restore({ workspaceId, path, id: selected.id });
      if (result.status === 'error') return result.message;
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: orpc.history.key() });
      void queryClient.invalidateQueries({ queryKey: orpc.memory.read.key({ input: { workspaceId, path } }) });
      onRestored(`Restored the version of ${whenText(selected.at)} (${exactTime(selected.at)}).`);
    });

  const focusable = selectedId ?? versions[0]?.id;
  const incomplete = list.data?.incompleteSince ?? null;
  const more = versions.length >= limit && limit < HISTORY_MAX;

  return (
    <section className="history" aria-label={`History of ${name}`}>
      {incomplete && (
        <div className="notice warn" role="note">
          <AlertTriangle size={14} aria-hidden />
          <span>
            History incomplete since <time dateTime={incomplete} title={incomplete}>{exactTime(incomplete)}</time> ({whenText(incomplete)}): changes made after that may be missing here.
          </span>
        </div>
      )}
      {dirty && (
        <div className="notice warn" role="note">
          <AlertTriangle size={14} aria-hidden /> You have unsaved edits. Versions are compared with the saved file; restoring one discards your edits (you are asked first).
        </div>
      )}
      <div className="history-body">
        <div className="history-list">
          {list.isError ? (
            <LoadFailed what="the history" error={list.error} onRetry={() => void list.refetch()} />
          ) : !list.data ? (
            <Loading what="history" />
          ) : versions.length === 0 ? (
            <div className="state">
              <HistoryIcon size={18} aria-hidden />
              <p>No versions of {name} are recorded yet.</p>
            </div>
          ) : (
            <>
              <div ref={listRef} role="listbox" aria-label={`Versions of ${name}, newest first`} className="versions" onKeyDown={onListKey}>
                {versions.map((v, i) => (
                  <VersionOption
                    key={v.id}
                    v={v}
                    latest={i === 0}
                    restoredAt={byId.get(restoredId(v.cause) ?? '')?.at ?? null}
                    selected={v.id === selectedId}
                    focusable={v.id === focusable}
                    onSelect={() => select(v.id)}
                  />
                ))}
              </div>
              {more && (
                <button type="button" className="btn history-more" onClick={() => setLimit((l) => Math.min(HISTORY_MAX, l + HISTORY_PAGE))} disabled={list.isFetching}>
                  Show older versions
                </button>
              )}
            </>
          )}
        </div>
        <div className="history-detail">
          {!selected ? (
            versions.length > 0 && <p className="history-hint">Select a version to compare it with the file as it is now, and to restore it.</p>
          ) : (
            <>
              <div className="version-head">
                <div className="version-title">
                  <h3>
                    {opWords(selected)} {whenText(selected.at)}
                  </h3>
                  <p>
                    <time dateTime={selected.at}>{exactTime(selected.at)}</time> · {byWords(selected, byId.get(restoredId(selected.cause) ?? '')?.at ?? null)} · {linesWords(selected)}
                  </p>
                </div>
                <button type="button" className="btn primary" disabled={!canRestore} onClick={() => (restore.reset(), setConfirming(true))}>
                  <RotateCcw size={14} aria-hidden /> Restore this version
                </button>
              </div>
              <div className="compare-switch" role="group" aria-label="Compare">
                <button type="button" className={compare === 'now' ? 'tab selected' : 'tab'} aria-pressed={compare === 'now'} onClick={() => setCompare('now')}>
                  With the file now
                </button>
                <button type="button" className={compare === 'change' ? 'tab selected' : 'tab'} aria-pressed={compare === 'change'} onClick={() => setCompare('change')}>
                  What this change did
                </button>
              </div>
              <VersionDiff compare={compare} text={text} nowText={nowText} nowError={current.isError ? errorMessage(current.error) : null} sameAsNow={sameAsNow} />
              {restore.error && !confirming && (
                <p className="error-text" role="alert">
                  {restore.error}
                </p>
              )}
            </>
          )}
        </div>
      </div>
      {confirming && selected && (
        <ConfirmDialog
          title={`Restore ${name} to this version?`}
          confirmLabel={dirty ? 'Discard my edits and restore' : 'Restore'}
          danger={dirty}
          busy={restore.busy}
          onCancel={() => setConfirming(false)}
          onConfirm={() => void doRestore()}
        >
          <p>
            {name} gets the content it had {whenText(selected.at)} ({exactTime(selected.at)}), for you and every agent. What it holds now stays in its
            history, so you can restore that again.
          </p>
          {dirty && (
            <p className="warn-text">
              <AlertTriangle size={14} aria-hidden /> Your unsaved edits in the editor are discarded.
            </p>
          )}
          {restore.error && (
            <p className="error-text" role="alert">
              {restore.error}
            </p>
          )}
        </ConfirmDialog>
      )}
    </section>
  );
}

function VersionOption({ v, latest, restoredAt, selected, focusable, onSelect }: { v: Version; latest: boolean; restoredAt: string | null; selected: boolean; focusable: boolean; onSelect: () => void }) {
  const lines = linesShort(v);
  return (
    <div
      role="option"
      aria-selected={selected}
      aria-label={versionLabel(v, restoredAt, latest)}
      data-version={v.id}
      tabIndex={focusable ? 0 : -1}
      className={selected ? 'version selected' : 'version'}
      onClick={onSelect}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onSelect();
        }
      }}
    >
      {/* The spaces between the parts are not drawn (flex items) but keep the words apart in the text the name is checked against. */}
      <div className="v-line1">
        <span className={`v-op ${v.op}`}>{opWords(v)}</span>{' '}
        {latest && <span className="badge latest">latest</span>}{' '}
        {lines && (
          <span className="v-lines">
            <span className="v-add">{lines.added}</span> <span className="v-del">{lines.removed}</span>
          </span>
        )}
      </div>{' '}
      <div className="v-line2">
        <span className={`v-who ${v.actor}`}>{byWords(v, restoredAt)}</span>{' '}
        <time dateTime={v.at} title={exactTime(v.at)}>
          {whenText(v.at)}
        </time>
      </div>
    </div>
  );
}

interface VersionDiffProps {
  compare: Compare;
  text: { isError: boolean; error: unknown; data?: { version: Version; before: string | null; after: string | null; beforeKnown: boolean; afterKnown: boolean } | undefined };
  nowText: string | null | undefined;
  nowError: string | null;
  sameAsNow: boolean;
}

function VersionDiff({ compare, text, nowText, nowError, sameAsNow }: VersionDiffProps) {
  if (text.isError) {
    return (
      <div className="state error" role="alert">
        Could not read this version: {errorMessage(text.error)}
      </div>
    );
  }
  if (!text.data || nowText === undefined) {
    return (
      <div className="state" role="status">
        <Loader2 size={16} className="spin" aria-hidden /> Reading the version…
      </div>
    );
  }
  const t = text.data;
  if (compare === 'change') {
    if (!t.beforeKnown || !t.afterKnown) return <p className="history-hint">What this change did is not known: the content {t.beforeKnown ? 'after' : 'before'} it was not recorded (or has been collected).</p>;
    return <LineDiff oldText={t.before ?? ''} newText={t.after ?? ''} oldLabel="the file before this change" newLabel="the file after it" />;
  }
  const content = versionContent(t);
  if (content === undefined) return <p className="history-hint">The content of this version was not recorded (or has been collected), so it cannot be shown or restored.</p>;
  return (
    <>
      {t.version.op === 'delete' && <p className="history-hint">This version deleted the file; shown is what the file held just before, which restoring brings back.</p>}
      {nowText === null && <p className="history-hint">The file cannot be read now{nowError ? ` (${nowError})` : ''}; compared with an empty file.</p>}
      {sameAsNow ? (
        <p className="history-hint same">This version is what the file holds now.</p>
      ) : (
        <LineDiff oldText={content ?? ''} newText={nowText ?? ''} oldLabel="this version" newLabel="the file now" />
      )}
    </>
  );
}
