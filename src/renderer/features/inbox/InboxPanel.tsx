/**
 * The Inbox: memories proposed from agents' sessions, waiting for a person. Each
 * proposal shows its text, category, the file it would be added to, how sure the extractor is, the
 * session it came from and when, why it was proposed, and the quotes it rests on. The person
 * approves it (added to that file), edits then approves (its text, and/or another file, chosen or
 * typed), rejects it, or rejects everything from one session. An agent's change held by review
 * mode (a scope under review) shows as a diff of the file now against the agent's version, the
 * same diff as the history's; Approve applies it (only if the file is still as the agent saw it),
 * Reject drops it. The header holds the harvest switch, the harvest's status line with Harvest now
 * and Retry (HarvestStatusLine), and the review switches. The list follows every change to the inbox,
 * by any process (use-inbox.ts).
 *
 * A file of the inbox the server cannot read as an item (damaged: not JSON, not an item) is shown
 * first, in every view, with what is wrong and where the file is: it can be neither approved nor
 * rejected, and Cairn leaves it as it is for the person to look at and remove. When the server
 * read only the newest items (MAX_INBOX_PENDING), the view says how many older files it left.
 *
 * Invariants: nothing is added to memory without Approve; a conflict or an error is shown on the
 * proposal, which stays in the list; an approval says where the text went, opens that file on
 * request, and can be undone (history.undo of the version caused by `harvest:<id>`, or `review:<id>`
 * for a change). Keyboard: the
 * arrows move between proposals, `a` approves, `e` edits, `r` rejects the focused one (never while
 * typing in a field).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, Archive, ArrowRight, Bot, Check, FileInput, FileWarning, GitCompare, Inbox as InboxIcon, Loader2, Pencil, RefreshCw, Undo2, X } from 'lucide-react';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { AGENT_NAMES, heldBackText, shortSession } from '../../../common/api/harvest-status-text';
import { MAX_INBOX_PENDING } from '../../../common/memory/constants';
import { fileOrigin, originText, toolOnlyText } from '../../../common/api/inbox-text';
import { errorMessage, useApi } from '../../api/api-context';
import { listKeyIndex } from '../../lib/list-keys';
import { LoadFailed, Loading } from '../../lib/QueryState';
import { CopyButton } from '../../lib/CopyButton';
import { ConfirmDialog } from '../dialogs/Dialog';
import { exactTime, whenText } from '../history/history-words';
import { LineDiff } from '../history/LineDiff';
import {
  CATEGORY_LABELS,
  CHANGE_SIDES,
  changeApprovedText,
  changeTitle,
  confidenceText,
  fileEvidenceText,
  evidenceSpeaker,
  fileName,
  groupBySession,
  neighbourOf,
  splitKinds,
  targetProblem,
  type DamagedInboxItem,
  type InboxItem,
  type SessionGroup,
} from './inbox-model';
import { HarvestStatusLine } from './HarvestStatusLine';
import { HarvestSwitch } from './HarvestSwitch';
import { ReviewSwitch } from './ReviewSwitch';
import { useHeldBack, useInbox } from './use-inbox';

const HARVEST_LINE = 'cairn harvest --transcript FILE';
/** The accessible name of the section (and list) of agents' changes held by review mode. */
const HELD_LABEL = 'Agents\u2019 changes held for your review';
/** The accessible name of the section of damaged inbox files. */
const DAMAGED_LABEL = 'Damaged item files';

export interface InboxPanelProps {
  workspaceId: string | null;
  /** Opens a memory file in the editor (the Inbox closes). */
  onOpenFile: (path: string) => void;
  onClose: () => void;
}

type Notice =
  | { tone: 'ok'; key: number; text: string; path: string | null; itemId: string | null; versionId: string | null; undoText?: string; canOpen?: boolean }
  | { tone: 'alert'; key: number; text: string };

interface Draft {
  id: string;
  text: string;
  to: string;
  focus: 'text' | 'to';
}

interface ItemError {
  kind: 'conflict' | 'error';
  message: string;
}

/** A text as a sentence that ends in a full stop (or its own ! or ?). */
const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

const isField = (el: Element) => el.closest('input, textarea, select, [contenteditable="true"]') !== null;

export function InboxPanel({ workspaceId, onOpenFile, onClose }: InboxPanelProps) {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const { query, items: viewItems, damaged, unread } = useInbox(workspaceId);
  const heldBack = useHeldBack(workspaceId);
  const [showHeld, setShowHeld] = useState(false);
  // The memory files of this view, for "Add to" (the browser has loaded them already).
  const files = useQuery(orpc.memory.list.queryOptions({ input: { workspaceId } }));
  const [gone, setGone] = useState<ReadonlySet<string>>(new Set());
  const [focusedId, setFocusedId] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [errors, setErrors] = useState<Record<string, ItemError>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  // The session whose "Reject all" waits for confirmation, by key: the dialog counts what is there now.
  const [confirmKey, setConfirmKey] = useState<string | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const panelRef = useRef<HTMLElement>(null);
  const focusPending = useRef<string | null>(null);
  const noticeKey = useRef(0);
  const datalistId = useId();

  // Asked for again whenever the view opens.
  const refetch = query.refetch;
  useEffect(() => {
    void refetch();
  }, [refetch]);

  const split = useMemo(() => splitKinds((viewItems ?? []).filter((i) => !gone.has(i.id))), [viewItems, gone]);
  const groups = useMemo(() => groupBySession(split.proposals), [split]);
  const confirmSession = confirmKey === null ? null : (groups.find((g) => g.key === confirmKey) ?? null);
  const heldChanges = split.changes;
  const heldItems = useMemo(() => heldBack.items.filter((i) => !gone.has(i.id)), [heldBack.items, gone]);
  const ordered = useMemo(
    () => [...heldChanges, ...groups.flatMap((g) => g.items), ...(showHeld ? heldItems : [])],
    [heldChanges, groups, showHeld, heldItems],
  );
  const byId = useMemo(() => new Map(ordered.map((i) => [i.id, i])), [ordered]);
  const knownPaths = useMemo(() => new Set((files.data?.files ?? []).map((f) => f.path)), [files.data]);
  const targets = useMemo(() => {
    const available = new Set((files.data?.scopes ?? []).filter((s) => s.available).map((s) => s.scope));
    const paths = new Set<string>();
    for (const i of ordered) if (i.kind === 'memory') paths.add(i.target);
    for (const f of files.data?.files ?? []) if (available.has(f.scope)) paths.add(f.path);
    return [...paths].sort();
  }, [files.data, ordered]);

  // After a move or a decision, focus the proposal it went to (once it is drawn).
  useEffect(() => {
    const id = focusPending.current;
    if (id === null) return;
    const el = listRef.current?.querySelector<HTMLElement>(`[data-item="${CSS.escape(id)}"]`);
    if (el) {
      focusPending.current = null;
      el.focus();
    }
  });

  const focusItem = (id: string | null) => {
    if (id === null) {
      panelRef.current?.focus();
      return;
    }
    focusPending.current = id;
    setFocusedId(id);
  };

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: orpc.inbox.list.key() });
  };

  const say = (n: Omit<Extract<Notice, { tone: 'ok' }>, 'key'> | Omit<Extract<Notice, { tone: 'alert' }>, 'key'>) => setNotice({ ...n, key: ++noticeKey.current } as Notice);

  const setError = (id: string, error: ItemError | null) =>
    setErrors((e) => {
      const next = { ...e };
      if (error) next[id] = error;
      else delete next[id];
      return next;
    });

  /** The proposal leaves the list (the focus going to its neighbour) and the list is asked for again. */
  const decided = (id: string) => {
    const next = neighbourOf(ordered, id);
    setGone((g) => new Set(g).add(id));
    setError(id, null);
    if (draft?.id === id) setDraft(null);
    focusItem(next);
    refresh();
  };

  const approve = async (item: InboxItem, edited?: Draft) => {
    if (busy) return;
    let to: string | null = null;
    let text: string | null = null;
    if (edited) {
      const problem = targetProblem(edited.to);
      if (problem) return setError(item.id, { kind: 'error', message: problem });
      if (edited.text.trim().length === 0) return setError(item.id, { kind: 'error', message: 'The text to add is empty.' });
      if (edited.to.trim() !== item.target) to = edited.to.trim();
      if (edited.text.trim() !== item.text.trim()) text = edited.text.trim();
    }
    setBusy(item.id);
    setError(item.id, null);
    try {
      const result = await client.inbox.approve({ workspaceId, id: item.id, to, text });
      if (result.status !== 'ok') {
        setError(item.id, { kind: result.status, message: result.message });
        return;
      }
      decided(item.id);
      void queryClient.invalidateQueries({ queryKey: orpc.memory.list.key({ input: { workspaceId } }) });
      if (item.change && item.from?.kind === 'pull') say({ tone: 'ok', text: result.message, path: result.path, itemId: item.id, versionId: null });
      else if (item.change) {
        say({ tone: 'ok', text: changeApprovedText(item.change), path: result.path, itemId: item.id, versionId: null, undoText: `Took the agent\u2019s change back: ${changeTitle(item.change)} is undone, and back in the Inbox to decide again.`, canOpen: item.change.command !== 'delete' });
      } else say({ tone: 'ok', text: result.message, path: result.path, itemId: item.id, versionId: null });
      // The next decision need not wait for the Undo below: a key pressed now (r on the proposal the
      // focus moved to) is acted on, not dropped.
      setBusy(null);
      // The version it made, so that the confirmation can offer Undo.
      try {
        const { versions } = await client.history.list({ workspaceId, path: result.path, limit: 20 });
        const version = versions.find((v) => v.cause === `${item.kind === 'change' ? 'review' : 'harvest'}:${item.id}`);
        if (version) setNotice((n) => (n?.tone === 'ok' && n.itemId === item.id ? { ...n, versionId: version.id } : n));
      } catch {
        // Without the history, the confirmation simply offers no Undo.
      }
    } catch (err) {
      setError(item.id, { kind: 'error', message: errorMessage(err) });
    } finally {
      // Not another decision's: one may have started while the Undo was looked up.
      setBusy((b) => (b === item.id ? null : b));
    }
  };

  const reject = async (item: InboxItem) => {
    if (busy) return;
    setBusy(item.id);
    setError(item.id, null);
    try {
      const result = await client.inbox.reject({ workspaceId, id: item.id });
      if (result.status !== 'ok') {
        setError(item.id, { kind: 'error', message: result.message });
        return;
      }
      decided(item.id);
      if (item.change && item.from?.kind === 'pull') say({ tone: 'ok', text: `Rejected the pulled change: ${item.change.path} has its text from before the pull again.`, path: null, itemId: null, versionId: null });
      else if (item.change) say({ tone: 'ok', text: `Rejected the agent\u2019s change: ${changeTitle(item.change)}. Memory is unchanged.`, path: null, itemId: null, versionId: null });
      else say({ tone: 'ok', text: `Rejected: ${sentence(item.text)} It will not be proposed again for 90 days.`, path: null, itemId: null, versionId: null });
    } catch (err) {
      setError(item.id, { kind: 'error', message: errorMessage(err) });
    } finally {
      setBusy(null);
    }
  };

  /** One request (inbox.rejectSession): every pending proposal of the session goes, or none. */
  const rejectSession = async (group: SessionGroup) => {
    setBusy(`session:${group.key}`);
    const left = group.items.filter((i) => !gone.has(i.id));
    const what = originText(group);
    let failure: string | null = null;
    try {
      const result = await client.inbox.rejectSession({ sessionId: group.sessionId });
      if (result.status !== 'ok') failure = result.message;
    } catch (err) {
      failure = errorMessage(err);
    }
    setBusy(null);
    setConfirmKey(null);
    refresh();
    if (failure !== null) {
      say({ tone: 'alert', text: `Could not reject the proposals from ${what}: ${failure}` });
      return;
    }
    setGone((g) => new Set([...g, ...left.map((i) => i.id)]));
    const done = left.length;
    say({ tone: 'ok', text: `Rejected ${done} ${done === 1 ? 'proposal' : 'proposals'} from ${what}. They will not be proposed again for 90 days.`, path: null, itemId: null, versionId: null });
    const next = ordered.find((i) => !left.some((l) => l.id === i.id));
    focusItem(next?.id ?? null);
  };

  const undo = async (n: Extract<Notice, { tone: 'ok' }>) => {
    if (!n.versionId || !n.path) return;
    try {
      const result = await client.history.undo({ workspaceId, id: n.versionId });
      void queryClient.invalidateQueries({ queryKey: orpc.history.key() });
      // An approval undone puts its proposal back in the Inbox, to decide again.
      const back = n.itemId;
      if (result.status === 'ok' && back)
        setGone((g) => {
          const next = new Set(g);
          next.delete(back);
          return next;
        });
      void queryClient.invalidateQueries({ queryKey: orpc.inbox.list.key() });
      if (result.status === 'ok') say({ tone: 'ok', text: n.undoText ?? `Took the approved text back out of ${n.path}; the proposal is back to decide again.`, path: n.undoText ? null : n.path, itemId: null, versionId: null });
      else say({ tone: 'alert', text: `Could not undo: ${result.message}` });
    } catch (err) {
      say({ tone: 'alert', text: `Could not undo: ${errorMessage(err)}` });
    }
  };

  const edit = (item: InboxItem, focus: Draft['focus'] = 'text') => {
    setFocusedId(item.id);
    setDraft({ id: item.id, text: item.text, to: item.target, focus });
    // The whole form in view (it is taller than the proposal was).
    requestAnimationFrame(() => listRef.current?.querySelector<HTMLElement>(`[data-item="${CSS.escape(item.id)}"]`)?.scrollIntoView?.({ block: 'nearest' }));
  };

  const cancelEdit = (id: string) => {
    setDraft(null);
    setError(id, null);
    focusItem(id);
  };

  const onListKey = (e: React.KeyboardEvent) => {
    if (e.altKey || e.ctrlKey || e.metaKey || isField(e.target as Element)) return;
    const from = (e.target as HTMLElement).closest('[data-item]')?.getAttribute('data-item') ?? focusedId;
    const at = ordered.findIndex((i) => i.id === from);
    const item = at >= 0 ? ordered[at] : undefined;
    const move = listKeyIndex(e.key, at, ordered.length);
    if (move !== null) {
      e.preventDefault();
      const to = ordered[move];
      if (to) focusItem(to.id);
      return;
    }
    switch (e.key) {
      case 'a':
        if (item) void approve(item);
        break;
      case 'r':
        if (item) void reject(item);
        break;
      case 'e':
        // A change is approved as the agent made it, or rejected.
        if (item?.kind === 'memory') edit(item);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const focusable = focusedId !== null && byId.has(focusedId) ? focusedId : ordered[0]?.id;
  const proposal = (item: InboxItem) => (
    <Proposal
      key={item.id}
      item={item}
      focusable={item.id === focusable}
      busy={busy === item.id}
      error={errors[item.id] ?? null}
      draft={draft?.id === item.id ? draft : null}
      targetExists={knownPaths.has(item.target)}
      datalistId={datalistId}
      onFocus={() => setFocusedId(item.id)}
      onApprove={() => void approve(item)}
      onReject={() => void reject(item)}
      onEdit={(focus) => edit(item, focus)}
      onDraft={(d) => setDraft(d)}
      onApproveDraft={(d) => void approve(item, d)}
      onCancel={() => cancelEdit(item.id)}
    />
  );
  // What asks for a decision: held-back proposals shown on request are not counted.
  const count = viewItems === undefined ? null : ordered.length - (showHeld ? heldItems.length : 0);

  return (
    <section className="inbox" aria-label="Inbox" ref={panelRef} tabIndex={-1}>
      <header className="editor-head">
        <div className="editor-title">
          <h2>Inbox</h2>
          <div className="inbox-sub">
            {count === null ? 'Memories proposed from your agents\u2019 sessions.' : count === 0 ? (damaged.length === 0 ? 'Nothing to review.' : 'No proposal to review.') : `${count} ${count === 1 ? 'proposal' : 'proposals'} to review. Nothing is added to memory until you approve it.`}
            {damaged.length > 0 && ` ${damaged.length === 1 ? 'One inbox file is damaged' : `${damaged.length} inbox files are damaged`}.`}
          </div>
          {workspaceId !== null && <HarvestSwitch workspaceId={workspaceId} />}
          {workspaceId !== null && <HarvestStatusLine workspaceId={workspaceId} />}
          <ReviewSwitch workspaceId={workspaceId} />
        </div>
        <div className="editor-tools">
          <button type="button" className="btn" onClick={refresh} disabled={query.isFetching}>
            <RefreshCw size={14} className={query.isFetching ? 'spin' : undefined} aria-hidden /> Refresh
          </button>
          <button type="button" className="icon-btn" aria-label="Close the inbox" title="Close the inbox" onClick={onClose}>
            <X size={16} aria-hidden />
          </button>
        </div>
      </header>
      {notice &&
        (notice.tone === 'ok' ? (
          <div key={notice.key} className="notice ok inbox-notice" role="status">
            <Check size={14} aria-hidden />
            <span className="inbox-notice-text">{notice.text}</span>
            {notice.path && notice.canOpen !== false && (
              <button type="button" className="btn" onClick={() => onOpenFile(notice.path!)}>
                Open {fileName(notice.path)}
              </button>
            )}
            {notice.versionId && (
              <button type="button" className="btn" onClick={() => void undo(notice)}>
                <Undo2 size={14} aria-hidden /> Undo
              </button>
            )}
            <button type="button" className="icon-btn" aria-label="Dismiss" title="Dismiss" onClick={() => setNotice(null)}>
              <X size={14} aria-hidden />
            </button>
          </div>
        ) : (
          <div key={notice.key} className="notice error inbox-notice" role="alert">
            <span className="inbox-notice-text">{notice.text}</span>
            <button type="button" className="icon-btn" aria-label="Dismiss" title="Dismiss" onClick={() => setNotice(null)}>
              <X size={14} aria-hidden />
            </button>
          </div>
        ))}
      <div className="inbox-body">
        {query.isError && !query.data ? (
          <LoadFailed what="the inbox" error={query.error} onRetry={() => void query.refetch()} />
        ) : viewItems === undefined ? (
          <Loading what="the inbox" />
        ) : ordered.length === 0 && (damaged.length > 0 || heldItems.length > 0) ? (
          <div className="inbox-list">
            {damaged.length > 0 && <DamagedSection damaged={damaged} />}
            {unread > 0 && <UnreadNote unread={unread} />}
            {heldItems.length > 0 && <HeldBackSection count={heldItems.length} open={showHeld} onToggle={() => setShowHeld((v) => !v)}>
              {heldItems.map(proposal)}
            </HeldBackSection>}
          </div>
        ) : ordered.length === 0 ? (
          <div className="inbox-empty">
            <InboxIcon size={28} aria-hidden />
            <h3>Nothing to review</h3>
            <p>
              When Cairn harvests an agent&apos;s session, the memories it proposes from what was said (your preferences, the codebase&apos;s conventions,
              commands, lessons) wait here. Nothing becomes memory until you approve it.
            </p>
            <p>While review mode is on for a memory scope (above), an agent&apos;s changes to it wait here too, as a diff.</p>
            <p>
              {workspaceId !== null
                ? 'Harvest now (above) reads this workspace\u2019s Claude Code and Codex sessions on this machine. To harvest one transcript or rollout yourself:'
                : 'Harvest a Claude Code transcript or a Codex rollout yourself:'}
            </p>
            <div className="code-line">
              <code>{HARVEST_LINE}</code>
              <CopyButton text={HARVEST_LINE} label="Copy the harvest command" />
            </div>
          </div>
        ) : (
          <div ref={listRef} className="inbox-list" onKeyDown={onListKey}>
            {damaged.length > 0 && <DamagedSection damaged={damaged} />}
            {unread > 0 && <UnreadNote unread={unread} />}
            {heldChanges.length > 0 && (
              <section className="inbox-session" aria-label={HELD_LABEL}>
                <div className="session-head">
                  <Bot size={15} aria-hidden />
                  <span className="session-what">
                    <strong>Agents&rsquo; changes</strong>
                    <span className="muted">
                      {' '}
                      · {heldChanges.length} held by review mode · memory is unchanged until you approve
                    </span>
                  </span>
                </div>
                <ul className="proposals" aria-label={HELD_LABEL}>
                  {heldChanges.map((item) => (
                    <ChangeProposal
                      key={item.id}
                      item={item}
                      focusable={item.id === focusable}
                      busy={busy === item.id}
                      error={errors[item.id] ?? null}
                      onFocus={() => setFocusedId(item.id)}
                      onApprove={() => void approve(item)}
                      onReject={() => void reject(item)}
                      onOpen={() => onOpenFile(item.change!.path)}
                    />
                  ))}
                </ul>
              </section>
            )}
            {groups.map((g) => (
              <SessionSection
                key={g.key}
                group={g}
                busy={busy === `session:${g.key}`}
                onRejectAll={() => setConfirmKey(g.key)}
              >
                {g.items.map(proposal)}
              </SessionSection>
            ))}
            {heldItems.length > 0 && (
              <HeldBackSection count={heldItems.length} open={showHeld} onToggle={() => setShowHeld((v) => !v)}>
                {heldItems.map(proposal)}
              </HeldBackSection>
            )}
            <datalist id={datalistId}>
              {targets.map((p) => (
                <option key={p} value={p} />
              ))}
            </datalist>
          </div>
        )}
      </div>
      {ordered.length > 0 && (
        <p className="inbox-keys muted">
          <kbd>↑</kbd>
          <kbd>↓</kbd> move · <kbd>A</kbd> approve · <kbd>E</kbd> edit (a proposed memory) · <kbd>R</kbd> reject
        </p>
      )}
      {confirmSession && (
        <ConfirmDialog
          title={
            confirmSession.items.length === 1
              ? `Reject the proposal from this ${fileOrigin(confirmSession.sessionId) ? 'file' : 'session'}?`
              : `Reject all ${confirmSession.items.length} from this ${fileOrigin(confirmSession.sessionId) ? 'file' : 'session'}?`
          }
          confirmLabel={confirmSession.items.length === 1 ? 'Reject it' : `Reject all ${confirmSession.items.length}`}
          danger
          busy={busy !== null}
          onCancel={() => setConfirmKey(null)}
          onConfirm={() => void rejectSession(confirmSession)}
        >
          <p>
            {confirmSession.items.length === 1 ? 'The proposal' : 'Every proposal'} still in the inbox from {originText(confirmSession)} is rejected, and not proposed again
            for 90 days. Memory is not changed.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The inbox's damaged files: what is wrong with each and where it is; no action but the person's own. */
function DamagedSection({ damaged }: { damaged: readonly DamagedInboxItem[] }) {
  return (
    <section className="inbox-session" aria-label={DAMAGED_LABEL}>
      <div className="session-head">
        <FileWarning size={15} aria-hidden />
        <span className="session-what">
          <strong>Damaged</strong>
          <span className="muted"> · {damaged.length === 1 ? '1 inbox file Cairn cannot read · left as it is' : `${damaged.length} inbox files Cairn cannot read · left as they are`}</span>
        </span>
      </div>
      <ul className="proposals" aria-label={DAMAGED_LABEL}>
        {damaged.map((d) => (
          <li key={d.id} className="proposal" aria-label={`Damaged inbox file ${d.id}`}>
            <div className="p-meta">
              <span className="badge cat-lesson">Damaged</span>
              {d.createdAt && <ItemTime verb="proposed" at={d.createdAt} />}
            </div>
            <div className="p-error" role="note">
              This inbox item cannot be read: {d.problem}. It can be neither approved nor rejected, and Cairn does not change or remove the file.
            </div>
            <div className="p-target">
              <span className="muted">File</span> <code>{d.file}</code>
              <CopyButton text={d.file} label="Copy the file's path" />
            </div>
            <p className="p-why muted">Look at the file (one item, as JSON). Once it holds nothing you need, remove it; it then leaves this list.</p>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Older inbox files the server did not read: it lists the newest MAX_INBOX_PENDING. */
/** When an item was proposed (or its change made), the exact time on hover. */
function ItemTime({ verb, at }: { verb: string; at: string }) {
  return (
    <span className="p-when muted">
      {verb}{' '}
      <time dateTime={at} title={exactTime(at)}>
        {whenText(at)}
      </time>
    </span>
  );
}

/** Why an item's approval did not go through: a conflict (a warning), else `failed` and the reason. */
function ItemErrorText({ error, failed }: { error: ItemError; failed: string }) {
  return (
    <div className={error.kind === 'conflict' ? 'p-error warn' : 'p-error'} role="alert">
      {error.kind === 'conflict' ? 'Conflict: ' : failed}
      {error.message}
    </div>
  );
}

function UnreadNote({ unread }: { unread: number }) {
  return (
    <p className="p-hint" role="note">
      {unread === 1 ? '1 older inbox file was' : `${unread} older inbox files were`} not read: the Inbox shows the newest {MAX_INBOX_PENDING}. Approve or reject these to see
      the rest.
    </p>
  );
}

/**
 * What a long session's run found past the most it proposes: less confident, never asked about,
 * shown on the person's click and decided like any proposal.
 */
function HeldBackSection({ count, open, onToggle, children }: { count: number; open: boolean; onToggle: () => void; children: React.ReactNode }) {
  const listId = useId();
  return (
    <section className="inbox-session held-back" aria-label="Held back">
      <div className="session-head">
        <Archive size={15} aria-hidden />
        <span className="session-what">
          <strong>Held back</strong>
          <span className="muted"> · {heldBackText(count)} Not asked about; decide any you want.</span>
        </span>
        <button type="button" className="btn small" aria-expanded={open} aria-controls={listId} onClick={onToggle}>
          {open ? 'Hide' : `Show ${count}`}
        </button>
      </div>
      {open && (
        <ul id={listId} className="proposals" aria-label="Held back proposals">
          {children}
        </ul>
      )}
    </section>
  );
}

function SessionSection({ group, busy, onRejectAll, children }: { group: SessionGroup; busy: boolean; onRejectAll: () => void; children: React.ReactNode }) {
  // A file a person imported or adopted is no session: said as what it is.
  const file = fileOrigin(group.sessionId);
  const count = `${group.items.length} ${group.items.length === 1 ? 'proposal' : 'proposals'}`;
  const origin = originText(group);
  return (
    <section className="inbox-session" aria-label={`From ${origin}`}>
      <div className="session-head">
        {file ? <FileInput size={15} aria-hidden /> : <Bot size={15} aria-hidden />}
        {file ? (
          <span className="session-what">
            <strong>{file.how === 'import' ? 'Imported' : 'Adopted'}</strong> from <code title={file.file}>{file.file}</code>
            <span className="muted"> · {count}</span>
          </span>
        ) : (
          <span className="session-what">
            <strong>{group.agent === null ? 'An agent' : AGENT_NAMES[group.agent]}</strong> session <code title={group.sessionId}>{shortSession(group.sessionId)}</code>
            <span className="muted">
              {' '}
              · {count} · found by the {group.extractor} extractor
            </span>
          </span>
        )}
        <button type="button" className="btn danger small" onClick={onRejectAll} disabled={busy}>
          {busy ? <Loader2 size={13} className="spin" aria-hidden /> : <X size={13} aria-hidden />} Reject all from this {file ? 'file' : 'session'}
        </button>
      </div>
      <ul className="proposals" aria-label={`Proposals from ${origin}`}>
        {children}
      </ul>
    </section>
  );
}

interface ProposalProps {
  item: InboxItem;
  focusable: boolean;
  busy: boolean;
  error: ItemError | null;
  draft: Draft | null;
  targetExists: boolean;
  datalistId: string;
  onFocus: () => void;
  onApprove: () => void;
  onReject: () => void;
  onEdit: (focus: Draft['focus']) => void;
  onDraft: (d: Draft) => void;
  onApproveDraft: (d: Draft) => void;
  onCancel: () => void;
}

function Proposal({ item, focusable, busy, error, draft, targetExists, datalistId, onFocus, onApprove, onReject, onEdit, onDraft, onApproveDraft, onCancel }: ProposalProps) {
  const textId = useId();
  const toId = useId();
  const category = item.category ? CATEGORY_LABELS[item.category] : 'Memory';
  // Read from a file (imported or adopted): no extractor's guess, and no person who said it.
  const fromFile = fileOrigin(item.sessionId);
  const onDraftKey = (e: React.KeyboardEvent) => {
    if (!draft) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    } else if (e.key === 'Enter' && ((e.target as HTMLElement).tagName === 'INPUT' || e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      onApproveDraft(draft);
    }
  };
  return (
    <li
      className={draft ? 'proposal editing' : 'proposal'}
      data-item={item.id}
      tabIndex={focusable ? 0 : -1}
      aria-label={`${category}: ${item.text}`}
      aria-busy={busy || undefined}
      onFocus={onFocus}
    >
      <div className="p-meta">
        <span className={`badge cat-${item.category}`}>{category}</span>
        <span className="p-conf" title="How sure the extractor is that this is worth remembering as written">
          {confidenceText(item.confidence, fromFile !== null)}
        </span>
        <ItemTime verb="proposed" at={item.createdAt} />
      </div>
      {draft ? (
        <div className="p-edit" onKeyDown={onDraftKey}>
          <label htmlFor={textId}>Text to add</label>
          <textarea
            id={textId}
            value={draft.text}
            rows={Math.min(6, Math.max(2, Math.ceil(draft.text.length / 70)))}
            maxLength={4000}
            autoFocus={draft.focus === 'text'}
            onChange={(e) => onDraft({ ...draft, text: e.target.value })}
          />
          <label htmlFor={toId}>Add to file</label>
          <input
            id={toId}
            type="text"
            list={datalistId}
            value={draft.to}
            spellCheck={false}
            autoFocus={draft.focus === 'to'}
            aria-describedby={`${toId}-hint`}
            onChange={(e) => onDraft({ ...draft, to: e.target.value })}
          />
          <span id={`${toId}-hint`} className="p-hint">
            Pick one of your memory files or type a new path (a new file is created).
          </span>
        </div>
      ) : (
        <p className="p-text">{item.text}</p>
      )}
      {!draft && (
        <div className="p-target">
          <ArrowRight size={13} aria-hidden /> <span className="muted">Adds to</span> <code>{item.target}</code>
          {!targetExists && <span className="muted">(a new file)</span>}
          <button type="button" className="link" onClick={() => onEdit('to')} aria-label={`Change where \u201c${item.text}\u201d goes`}>
            Change
          </button>
        </div>
      )}
      <p className="p-why">
        <span className="muted">Why: </span>
        {item.rationale}
      </p>
      {item.evidence.length > 0 && (
        <div className="p-evidence" aria-label="Evidence" role="group">
          {item.evidence.map((e, i) => (
            <figure key={`${e.messageId}:${i}`}>
              <blockquote>{e.quote}</blockquote>
              <figcaption>
                {fromFile ? fileEvidenceText(fromFile.file, e.messageId) : evidenceSpeaker(item.category, e.speaker)}
                {e.at && (
                  <>
                    {' '}
                    <time dateTime={e.at} title={exactTime(e.at)}>
                      {whenText(e.at)}
                    </time>
                  </>
                )}
                {!fromFile && (
                  <>
                    {' '}
                    <span className="muted">
                      (message <code title={e.messageId}>{shortSession(e.messageId)}</code>)
                    </span>
                  </>
                )}
              </figcaption>
            </figure>
          ))}
        </div>
      )}
      {toolOnlyText(item.evidence) && (
        <p className="p-error warn p-tool-only">
          <AlertTriangle size={13} aria-hidden /> {toolOnlyText(item.evidence)}
        </p>
      )}
      {error && <ItemErrorText error={error} failed="Not added: " />}
      <div className="p-actions">
        {draft ? (
          <>
            <button type="button" className="btn primary" onClick={() => onApproveDraft(draft)} disabled={busy}>
              {busy ? <Loader2 size={14} className="spin" aria-hidden /> : <Check size={14} aria-hidden />} Approve
            </button>
            <button type="button" className="btn" onClick={onCancel} disabled={busy}>
              Cancel
            </button>
            <span className="p-hint">
              <kbd>Ctrl</kbd>+<kbd>Enter</kbd> approve · <kbd>Esc</kbd> cancel
            </span>
          </>
        ) : (
          <>
            <button type="button" className="btn primary" onClick={onApprove} disabled={busy} aria-keyshortcuts="a">
              {busy ? <Loader2 size={14} className="spin" aria-hidden /> : <Check size={14} aria-hidden />} Approve
            </button>
            <button type="button" className="btn" onClick={() => onEdit('text')} disabled={busy} aria-keyshortcuts="e">
              <Pencil size={14} aria-hidden /> Edit
            </button>
            <button type="button" className="btn danger" onClick={onReject} disabled={busy} aria-keyshortcuts="r">
              <X size={14} aria-hidden /> Reject
            </button>
          </>
        )}
      </div>
    </li>
  );
}

interface ChangeProposalProps {
  item: InboxItem;
  focusable: boolean;
  busy: boolean;
  error: ItemError | null;
  onFocus: () => void;
  onApprove: () => void;
  onReject: () => void;
  /** Opens the file in the editor (a sync's conflict: its banner and Compare resolve it there too). */
  onOpen: () => void;
}

/** An agent's change held by review mode: what it does, the diff of the file, Approve and Reject. */
function ChangeProposal({ item, focusable, busy, error, onFocus, onApprove, onReject, onOpen }: ChangeProposalProps) {
  const change = item.change!;
  const title = changeTitle(change);
  const from = item.from;
  const kind = from ? (from.kind === 'pull' ? 'From a git pull' : from.conflict ? 'Changed on both machines' : 'From another machine') : 'Agent\u2019s change';
  return (
    <li className="proposal change" data-item={item.id} tabIndex={focusable ? 0 : -1} aria-label={`${kind}: ${title}`} aria-busy={busy || undefined} onFocus={onFocus}>
      <div className="p-meta">
        <span className="badge">{kind}</span>
        {from && (
          <span className="p-from muted">
            {' '}
            {from.kind === 'pull' ? `commit ${from.commit.slice(0, 7)} by ${from.author ?? 'an unknown author'}` : `synced from ${from.remote ?? 'the sync remote'}, commit ${from.commit.slice(0, 7)}`}
          </span>
        )}
        <ItemTime verb="made" at={item.createdAt} />
      </div>
      <p className="p-text">{title}</p>
      {from?.flag && <p className="p-why warn">Held: {from.flag}</p>}
      {from?.conflict && <p className="p-why muted">This machine&rsquo;s side stays in memory; approve to take the other machine&rsquo;s instead.</p>}
      {from?.kind === 'pull' && <p className="p-why muted">The pull left this text in your checkout; agents do not get it until you approve. Reject writes back the text from before the pull.</p>}
      {change.command === 'rename' ? (
        <p className="p-why muted">The file&rsquo;s content stays as it is; only its name changes.</p>
      ) : (
        <LineDiff oldText={change.before ?? ''} newText={change.after ?? ''} oldLabel={CHANGE_SIDES.old} newLabel={CHANGE_SIDES.new} />
      )}
      {error && <ItemErrorText error={error} failed="Not applied: " />}
      <div className="p-actions">
        <button type="button" className="btn primary" onClick={onApprove} disabled={busy} aria-keyshortcuts="a">
          {busy ? <Loader2 size={14} className="spin" aria-hidden /> : <Check size={14} aria-hidden />} Approve
        </button>
        <button type="button" className="btn danger" onClick={onReject} disabled={busy} aria-keyshortcuts="r">
          <X size={14} aria-hidden /> Reject
        </button>
        {from?.kind === 'sync' && from.conflict && change.after !== null && (
          <button type="button" className="btn" onClick={onOpen} disabled={busy}>
            <GitCompare size={14} aria-hidden /> Compare in the editor
          </button>
        )}
      </div>
    </li>
  );
}
