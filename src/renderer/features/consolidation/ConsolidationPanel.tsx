/**
 * The consolidation view of one scope root, where the Inbox and the editor show: it
 * shows the scope's proposal waiting to be reviewed (made by `cairn consolidate` or an agent), else asks
 * for one at once ("Looking at 412 files…", with Cancel: the call is aborted and nothing is
 * stored; "Propose again" always asks anew), then shows it: the summary ("4 deletions, 1 merge"), what changed since the
 * last consolidation, and one row per change with its checkbox (all checked), its reason, each
 * file's usage and what happens to it, and on request each file side by side, now and after
 * (SideBySideDiff), and, when a model proposed, what asking it sent (the harvest's costText). "Apply N selected" applies only the checked changes (`consolidation.apply` with their
 * paths as `only`) and then says what was applied and what was skipped (a file that changed since
 * the proposal: a conflict, in words), with Undo; "Discard" drops the proposal. "Nothing to
 * consolidate" is a calm state saying why.
 *
 * The text of a file now is read when its diff is first shown (memory.read: the person looks at
 * it), and compared with the sha256 the proposal recorded: a file changed since says that applying
 * will skip its change.
 *
 * Keyboard: Up/Down/Home/End move between the changes (their checkboxes), Space checks or unchecks
 * one, Enter shows or hides its diff, Escape closes the view (cancelling a proposal still running).
 * The focus goes to the first change when the proposal shows, to the outcome after apply, and back
 * to where it was when the view closes.
 */
import { useQuery } from '@tanstack/react-query';
import { AlertTriangle, BrushCleaning, Check, ChevronDown, ChevronRight, Loader2, RotateCcw, X } from 'lucide-react';
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { costText } from '../../../common/api/harvest-status-text';
import type { Scope } from '../../../common/memory/constants';
import { CONSOLIDATION_DEFAULT_DAYS, consolidationSummary, type ConsolidationChange, type ConsolidationCost, type ConsolidationFile, type ConsolidationProposal, type ConsolidationRefusal, type ConsolidationSince } from '../../../common/consolidation/proposal';
import { errorMessage, useApi } from '../../api/api-context';
import { listKeyIndex } from '../../lib/list-keys';
import { relativeTime } from '../../lib/relative-time';
import { useAction } from '../../lib/use-action';
import { baseName } from '../tree/tree-model';
import { SideBySideDiff } from './SideBySideDiff';
import { actorText, changeKey, diffedFiles, extractorText, fileFate, kindLabel, nothingWhy, openProposal, proposerName, resultHeadline, sinceText, skippedText, sourceOf, usageText } from './consolidation-model';
import { useConsolidationRefresh, useConsolidationUndo } from './use-consolidations';
import { ErrorText } from '../../lib/ErrorText';

export interface ConsolidationPanelProps {
  workspaceId: string | null;
  scope: Scope;
  /** How many files the scope holds now (the progress line says it), if known. */
  fileCount: number | null;
  onClose: () => void;
}

type Phase =
  | { kind: 'proposing' }
  | { kind: 'cancelled' }
  | { kind: 'failed'; message: string }
  | { kind: 'nothing'; since: ConsolidationSince; refused: readonly ConsolidationRefusal[]; cost: ConsolidationCost | undefined }
  /** `earlier`: a proposal already open when the view opened (from `cairn consolidate`, an agent, or this view before). */
  | { kind: 'open'; proposal: ConsolidationProposal; earlier: boolean }
  | { kind: 'applied'; proposal: ConsolidationProposal; undone: { ok: boolean; text: string } | null }
  | { kind: 'discarded' };

const CANCELLED = 'Cancelled: nothing was proposed and nothing was written.';

export function ConsolidationPanel({ workspaceId, scope, fileCount, onClose }: ConsolidationPanelProps) {
  const { client, orpc } = useApi();
  // What proposes (the setting consolidationExtractor), for the progress line.
  const extractor = useQuery(orpc.settings.get.queryOptions()).data?.consolidationExtractor ?? null;
  const refresh = useConsolidationRefresh(workspaceId);
  const undoConsolidation = useConsolidationUndo(workspaceId);
  const [phase, setPhase] = useState<Phase>({ kind: 'proposing' });
  const [attempt, setAttempt] = useState(0);
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
  const [shown, setShown] = useState<ReadonlySet<string>>(new Set());
  const abort = useRef<AbortController | null>(null);
  const action = useAction();
  const panelRef = useRef<HTMLElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);
  const headingId = useId();

  // Back to where the focus was when the view closes: the element that opened it, else (the row
  // menu that opened it is gone) the scope's row in the tree. After the commit: a narrow window
  // shows the tree again only then.
  useLayoutEffect(() => {
    const active = document.activeElement as HTMLElement | null;
    const opener = active && active !== document.body ? active : null;
    return () => {
      setTimeout(() => {
        const now = document.activeElement;
        if (now && now !== document.body && now.isConnected) return;
        const target = opener?.isConnected ? opener : document.querySelector<HTMLElement>(`[data-row-id="${CSS.escape(`scope:${scope}`)}"]`);
        target?.focus();
      }, 0);
    };
  }, [scope]);

  // The scope's open proposal when there is one (the first time: a proposal `cairn consolidate` or an
  // agent made waits to be reviewed, not replaced), else propose (and on "Propose again" always);
  // leaving the view or Cancel aborts the call.
  useEffect(() => {
    const controller = new AbortController();
    abort.current = controller;
    setPhase({ kind: 'proposing' });
    const run = async () => {
      if (attempt === 0) {
        const open = openProposal((await client.consolidation.list({ workspaceId }, { signal: controller.signal })).proposals, scope);
        if (open) return { status: 'earlier' as const, proposal: open };
      }
      return client.consolidation.propose({ workspaceId, scope }, { signal: controller.signal });
    };
    run().then(
      (r) => {
        if (controller.signal.aborted) return;
        refresh();
        if (r.status === 'proposed' || r.status === 'earlier') {
          setChecked(new Set(r.proposal.changes.map(changeKey)));
          setShown(new Set());
          setPhase({ kind: 'open', proposal: r.proposal, earlier: r.status === 'earlier' });
        } else if (r.status === 'nothing') setPhase({ kind: 'nothing', since: r.since, refused: r.refused ?? [], cost: r.cost });
        else setPhase({ kind: 'failed', message: r.message });
      },
      (err: unknown) => {
        if (!controller.signal.aborted) setPhase({ kind: 'failed', message: errorMessage(err) });
      },
    );
    return () => controller.abort();
  }, [attempt, client, refresh, scope, workspaceId]);

  // Where the focus goes as the view changes: the first change, the outcome (again after an
  // undo: its button is gone), or the panel (its heading and state).
  const focusKey = phase.kind === 'applied' && phase.undone ? 'undone' : phase.kind;
  useEffect(() => {
    if (focusKey === 'open') listRef.current?.querySelector<HTMLElement>('input[type=checkbox]')?.focus();
    else if (focusKey === 'applied' || focusKey === 'undone') outcomeRef.current?.focus();
    else if (focusKey !== 'proposing') panelRef.current?.focus();
  }, [focusKey]);

  const cancel = () => {
    abort.current?.abort();
    setPhase({ kind: 'cancelled' });
  };

  const proposal = phase.kind === 'open' ? phase.proposal : null;
  const changes = proposal?.changes ?? [];
  const chosen = changes.filter((c) => checked.has(changeKey(c)));

  const apply = () =>
    action.run(async () => {
      if (!proposal || chosen.length === 0) return;
      const r = await client.consolidation.apply({ workspaceId, id: proposal.id, only: chosen.map(changeKey) });
      refresh();
      if (r.status === 'error') return r.message;
      setPhase({ kind: 'applied', proposal: r.proposal, undone: null });
    });

  const discard = () =>
    action.run(async () => {
      if (!proposal) return;
      const r = await client.consolidation.discard({ workspaceId, id: proposal.id });
      refresh();
      if (r.status === 'error') return r.message;
      setPhase({ kind: 'discarded' });
    });

  const undo = () =>
    action.run(async () => {
      if (phase.kind !== 'applied' || !phase.proposal.result?.batch) return;
      const outcome = await undoConsolidation({ batch: phase.proposal.result.batch, scope });
      setPhase({ ...phase, undone: outcome });
    });

  const toggle = (key: string, set: typeof setChecked) =>
    set((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key !== 'Escape' || e.defaultPrevented) return;
    e.preventDefault();
    if (action.busy) return;
    if (phase.kind === 'proposing') abort.current?.abort();
    onClose();
  };

  const onListKey = (e: React.KeyboardEvent) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const boxes = [...(listRef.current?.querySelectorAll<HTMLInputElement>('input[data-change]') ?? [])];
    const at = boxes.indexOf(e.target as HTMLInputElement);
    if (at < 0) return;
    const to = listKeyIndex(e.key, at, boxes.length);
    if (to !== null) {
      e.preventDefault();
      boxes[to]?.focus();
      boxes[to]?.scrollIntoView?.({ block: 'nearest' });
    } else if (e.key === 'Enter') {
      e.preventDefault();
      toggle(boxes[at]!.dataset.change!, setShown);
    }
  };

  const allChecked = changes.length > 0 && chosen.length === changes.length;
  const title = `Consolidate ${scope} memory`;

  return (
    <section className="consolidation" aria-labelledby={headingId} ref={panelRef} tabIndex={-1} onKeyDown={onKeyDown}>
      <header className="editor-head">
        <div className="editor-title">
          <h2 id={headingId}>
            <BrushCleaning size={15} aria-hidden className="consolidation-icon" /> {title}
          </h2>
          <div className="inbox-sub">
            {proposal ? (
              <>
                <strong className="consolidation-summary">{consolidationSummary(changes)}</strong>
                <span>
                  {' '}
                  · proposed {relativeTime(proposal.createdAt) ?? proposal.createdAt} {extractorText(proposal.extractor)} · nothing is written until you apply
                </span>
              </>
            ) : phase.kind === 'applied' ? (
              `Proposed: ${consolidationSummary(phase.proposal.changes)} · applied ${relativeTime(phase.proposal.result?.at ?? null) ?? ''}`
            ) : (
              'Files no agent has used for a while, and files saying the same thing, proposed for you to review.'
            )}
          </div>
        </div>
        <div className="editor-tools">
          {phase.kind === 'open' && (
            <button type="button" className="btn small" title="Look at the scope afresh: a new proposal replaces this one" onClick={() => setAttempt((n) => n + 1)} disabled={action.busy}>
              Propose again
            </button>
          )}
          <button type="button" className="icon-btn" aria-label="Close the consolidation" title="Close (Escape)" onClick={() => (phase.kind === 'proposing' && abort.current?.abort(), onClose())} disabled={action.busy}>
            <X size={16} aria-hidden />
          </button>
        </div>
      </header>

      {phase.kind === 'proposing' && (
        <div className="consolidation-state" role="status">
          <Loader2 size={18} className="spin" aria-hidden />
          <p>{fileCount === null ? `Looking at the files of ${scope} memory…` : `Looking at ${fileCount === 1 ? '1 file' : `${fileCount} files`} of ${scope} memory…`}</p>
          <p className="muted">
            {extractor === null || extractor === 'rules'
              ? 'Checking each file\'s usage and comparing their words for near-duplicates.'
              : `Asking the model (${extractor}) with the files, their usage and what changed since the last consolidation; this can take a while.`}{' '}
            Nothing is written.
          </p>
          <button type="button" className="btn" onClick={cancel}>
            Cancel
          </button>
        </div>
      )}

      {phase.kind === 'cancelled' && (
        <div className="consolidation-state">
          <p>{CANCELLED}</p>
          <Again onAgain={() => setAttempt((n) => n + 1)} onClose={onClose} />
        </div>
      )}

      {phase.kind === 'failed' && (
        <div className="consolidation-state error" role="alert">
          <p>Could not propose a consolidation: {phase.message}</p>
          <Again onAgain={() => setAttempt((n) => n + 1)} onClose={onClose} />
        </div>
      )}

      {phase.kind === 'nothing' && (
        <div className="consolidation-state calm">
          <Check size={22} aria-hidden className="consolidation-ok" />
          <h3>Nothing to consolidate</h3>
          <p>{nothingWhy(scope, CONSOLIDATION_DEFAULT_DAYS, phase.since)}</p>
          {phase.refused.length > 0 && <Refused refused={phase.refused} />}
          <Cost cost={phase.cost} />
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
        </div>
      )}

      {phase.kind === 'discarded' && (
        <div className="consolidation-state">
          <p>Discarded the proposal; nothing was written.</p>
          <Again onAgain={() => setAttempt((n) => n + 1)} onClose={onClose} />
        </div>
      )}

      {phase.kind === 'applied' && <Outcome ref={outcomeRef} proposal={phase.proposal} undone={phase.undone} busy={action.busy} onUndo={() => void undo()} onClose={onClose} error={action.error} />}

      {proposal && (
        <>
          <div className="consolidation-body">
            <Since since={proposal.since} />
            {phase.kind === 'open' && phase.earlier && (
              <p className="consolidation-earlier muted">This proposal was waiting for you (made {relativeTime(proposal.createdAt) ?? proposal.createdAt} by {proposerName(proposal.extractor)}); Propose again to look at the scope afresh.</p>
            )}
            {proposal.refused && proposal.refused.length > 0 && <Refused refused={proposal.refused} />}
            <Cost cost={proposal.cost} />
            {proposal.more > 0 && (
              <p className="consolidation-more muted">
                {proposal.more} more {proposal.more === 1 ? 'change qualified' : 'changes qualified'} past the {changes.length} a proposal holds; consolidate again after this one.
              </p>
            )}
            <label className="consolidation-all">
              <input
                type="checkbox"
                checked={allChecked}
                ref={(el) => {
                  if (el) el.indeterminate = chosen.length > 0 && !allChecked;
                }}
                onChange={() => setChecked(allChecked ? new Set() : new Set(changes.map(changeKey)))}
              />
              {changes.length === 1 ? 'The 1 change' : `All ${changes.length} changes`}
            </label>
            <ul className="consolidation-changes" ref={listRef} aria-label={`Proposed changes: ${consolidationSummary(changes)}`} onKeyDown={onListKey}>
              {changes.map((c) => (
                <ChangeRow
                  key={changeKey(c)}
                  workspaceId={workspaceId}
                  change={c}
                  checked={checked.has(changeKey(c))}
                  shown={shown.has(changeKey(c))}
                  onCheck={() => toggle(changeKey(c), setChecked)}
                  onShow={() => toggle(changeKey(c), setShown)}
                />
              ))}
            </ul>
          </div>
          <footer className="consolidation-foot">
            <ErrorText>{action.error}</ErrorText>
            <span className="muted consolidation-keys">
              <kbd>↑</kbd>
              <kbd>↓</kbd> move · <kbd>Space</kbd> check · <kbd>Enter</kbd> diff · <kbd>Esc</kbd> close
            </span>
            <button type="button" className="btn" onClick={() => void discard()} disabled={action.busy}>
              Discard
            </button>
            <button type="button" className="btn primary" onClick={() => void apply()} disabled={action.busy || chosen.length === 0}>
              {action.busy ? <Loader2 size={14} className="spin" aria-hidden /> : <Check size={14} aria-hidden />} Apply {chosen.length} selected
            </button>
          </footer>
        </>
      )}
    </section>
  );
}

function Again({ onAgain, onClose }: { onAgain: () => void; onClose: () => void }) {
  return (
    <div className="consolidation-actions">
      <button type="button" className="btn" onClick={onAgain}>
        Propose again
      </button>
      <button type="button" className="btn" onClick={onClose}>
        Close
      </button>
    </div>
  );
}

/** What asking the model sent, said as the harvest says it; nothing when no model was asked (the rules). */
function Cost({ cost }: { cost: ConsolidationCost | undefined }) {
  return cost && cost.calls > 0 ? <p className="consolidation-cost muted">{costText(cost)}</p> : null;
}

function Refused({ refused }: { refused: readonly ConsolidationRefusal[] }) {
  return (
    <details className="consolidation-refused">
      <summary>{refused.length === 1 ? '1 change was' : `${refused.length} changes were`} proposed but refused by Cairn&apos;s checks (not shown as changes)</summary>
      <ul>
        {refused.map((r, i) => (
          <li key={i}>
            {r.change} <span className="muted">· {r.reason}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

function Since({ since }: { since: ConsolidationSince }) {
  const text = sinceText(since);
  if (since.changed.length === 0) return <p className="consolidation-since muted">{text}</p>;
  return (
    <details className="consolidation-since">
      <summary>{text}</summary>
      <ul>
        {since.changed.map((c) => (
          <li key={c.path}>
            <code>{c.path}</code> <span className="muted">{c.op === 'delete' ? 'deleted' : c.op === 'create' ? 'created' : c.op === 'rename' ? 'renamed' : 'edited'} by {actorText(c.actor)} {relativeTime(c.at) ?? c.at}</span>
          </li>
        ))}
        {since.total > since.changed.length && <li className="muted">and {since.total - since.changed.length} more</li>}
      </ul>
    </details>
  );
}

interface ChangeRowProps {
  workspaceId: string | null;
  change: ConsolidationChange;
  checked: boolean;
  shown: boolean;
  onCheck: () => void;
  onShow: () => void;
}

function ChangeRow({ workspaceId, change, checked, shown, onCheck, onShow }: ChangeRowProps) {
  const key = changeKey(change);
  const diffId = useId();
  const label = `${kindLabel(change.kind)} ${change.path}`;
  return (
    <li className={`consolidation-change ${change.kind}${checked ? '' : ' unchecked'}`}>
      <div className="consolidation-change-head">
        <input id={`${diffId}-box`} type="checkbox" data-change={key} checked={checked} onChange={onCheck} aria-label={label} aria-describedby={`${diffId}-reason`} />
        {/* A click on the kind or the path checks it too (the checkbox keeps its own name). */}
        <label htmlFor={`${diffId}-box`} className="consolidation-change-label">
          <span className={`consolidation-kind ${change.kind}`}>{kindLabel(change.kind)}</span>
          <code className="consolidation-path">{change.path}</code>
        </label>
        <button type="button" className="btn small consolidation-show" aria-expanded={shown} aria-controls={diffId} aria-label={`${shown ? 'Hide' : 'Show'} the diff of ${change.path}`} onClick={onShow}>
          {shown ? <ChevronDown size={13} aria-hidden /> : <ChevronRight size={13} aria-hidden />} Diff
        </button>
      </div>
      <p className="consolidation-reason" id={`${diffId}-reason`}>
        {change.reason}
      </p>
      <ul className="consolidation-files">
        {change.files.map((f) => (
          <li key={f.path}>
            <code>{f.path}</code> <span className="consolidation-fate">{fileFate(change, f)}</span> {!f.created && <span className="muted">· {usageText(f.usage)}</span>}
          </li>
        ))}
      </ul>
      {shown && (
        <div className="consolidation-diffs" id={diffId}>
          {diffedFiles(change).map((f) => (
            <FileDiff key={f.path} workspaceId={workspaceId} change={change} file={f} />
          ))}
        </div>
      )}
    </li>
  );
}

function FileDiff({ workspaceId, change, file }: { workspaceId: string | null; change: ConsolidationChange; file: ConsolidationFile }) {
  const { orpc } = useApi();
  // A created file is compared with the file its text comes from (a rename's old name), if any.
  const source = sourceOf(change, file);
  const compared = file.created ? source : file;
  const now = useQuery({ ...orpc.memory.read.queryOptions({ input: { workspaceId, path: compared?.path ?? file.path } }), retry: false, enabled: compared !== null });
  const heading = (
    <h4 className="consolidation-file-head">
      {source ? (
        <>
          <code>{source.path}</code> → <code>{file.path}</code> <span className="muted">renamed</span>
        </>
      ) : (
        <>
          <code>{file.path}</code> <span className="muted">{fileFate(change, file)}</span>
        </>
      )}
    </h4>
  );
  if (compared === null) {
    return (
      <div className="consolidation-file">
        {heading}
        <SideBySideDiff of={file.path} before={null} after={file.content ?? ''} beforeLabel="Now: no file" afterLabel="After" />
      </div>
    );
  }
  if (now.isPending) {
    return (
      <div className="consolidation-file">
        {heading}
        <p className="muted">
          <Loader2 size={13} className="spin" aria-hidden /> Reading {file.path}…
        </p>
      </div>
    );
  }
  const before = now.data?.content ?? null;
  const moved = now.data ? now.data.sha256 !== compared.sha256 : true;
  return (
    <div className="consolidation-file">
      {heading}
      {moved && (
        <p className="consolidation-moved" role="note">
          <AlertTriangle size={13} aria-hidden /> {now.data ? `${compared.path} was changed since the proposal` : `${compared.path} is gone since the proposal`}: applying skips this change (a conflict), and the diff shows the file as it is now.
        </p>
      )}
      {file.content === undefined ? (
        <p className="muted consolidation-kept">Kept as it is: nothing to add.</p>
      ) : source && before === file.content ? (
        <p className="muted consolidation-kept">The text moves to the new name unchanged.</p>
      ) : (
        <SideBySideDiff of={file.path} before={before} after={file.content} beforeLabel={source ? `Now: ${baseName(source.path)}` : 'Now'} afterLabel={file.content === null ? 'After: deleted' : source ? `After: ${baseName(file.path)}` : 'After'} />
      )}
    </div>
  );
}

interface OutcomeProps {
  proposal: ConsolidationProposal;
  undone: { ok: boolean; text: string } | null;
  busy: boolean;
  error: string | null;
  onUndo: () => void;
  onClose: () => void;
}

const Outcome = ({ ref, proposal, undone, busy, error, onUndo, onClose }: OutcomeProps & { ref: React.Ref<HTMLDivElement> }) => {
  const result = proposal.result!;
  const pathsOf = useMemo(() => new Map(proposal.changes.map((c) => [c.path, c])), [proposal]);
  const left = proposal.changes.filter((c) => !result.applied.includes(c.path) && !result.skipped.some((s) => s.path === c.path));
  return (
    <div className="consolidation-outcome" ref={ref} tabIndex={-1}>
      <p className="consolidation-headline" role="status">
        {undone?.ok ? undone.text : resultHeadline(result)}
      </p>
      {undone && !undone.ok && <ErrorText>{undone.text}</ErrorText>}
      {!undone?.ok && (
        <>
          {result.applied.length > 0 && (
            <>
              <h3>Applied</h3>
              <ul className="consolidation-result">
                {result.applied.map((p) => (
                  <li key={p}>
                    <Check size={13} aria-hidden className="consolidation-ok" /> {kindLabel(pathsOf.get(p)?.kind ?? 'change')} <code>{p}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
          {left.length > 0 && (
            <>
              <h3>Left as they are (not selected)</h3>
              <ul className="consolidation-result">
                {left.map((c) => (
                  <li key={c.path} className="muted">
                    {kindLabel(c.kind)} <code>{c.path}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
          {result.skipped.length > 0 && (
            <>
              <h3>Skipped: a conflict</h3>
              <ul className="consolidation-result">
                {result.skipped.map((s) => (
                  <li key={s.path} className="consolidation-skipped">
                    <AlertTriangle size={13} aria-hidden /> {skippedText(s)}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
      <ErrorText>{error}</ErrorText>
      {result.batch && !undone?.ok && <p className="muted consolidation-undo-note">Undo takes the whole consolidation back, here or from the scope in the tree (“Last consolidated · Undo”), or with <code>cairn undo {result.batch}</code>.</p>}
      <div className="consolidation-actions">
        {result.batch && !undone?.ok && (
          <button type="button" className="btn" onClick={onUndo} disabled={busy}>
            <RotateCcw size={14} aria-hidden /> Undo this consolidation
          </button>
        )}
        <button type="button" className="btn" onClick={onClose} disabled={busy}>
          Close
        </button>
      </div>
    </div>
  );
};
