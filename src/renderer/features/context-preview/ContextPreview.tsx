/**
 * What agents receive without asking: the memory index and the hot set of this view,
 * exactly as `cairn context` and the MCP server's instructions render them (context.preview: the
 * same ContextBuilder and render functions on the server), each with its size against its byte
 * budget. Shown as plain text: memory content is untrusted and is never rendered as markup here.
 * Asked again when memory or pins change (a list refresh), and on Refresh. Above the parts, per
 * scope, how many of its files the index lists (a large memory outgrows the index's budget, and
 * which scopes lose out must be seen without scrolling to its end). "Try a prompt" shows the
 * relevant memories a prompt would bring (context.relevant: the prompt hook's own ranking and
 * rendering, by this view's injection settings).
 */
import { useQuery } from '@tanstack/react-query';
import { Loader2, RefreshCw, Search } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { z } from 'zod';
import type { contextPartSchema, indexScopeCountSchema } from '../../../common/api/contract/context';
import { useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { LoadFailed, Loading } from '../../lib/QueryState';
import { Dialog } from '../dialogs/Dialog';
import { ErrorText } from '../../lib/ErrorText';

export interface ContextPreviewProps {
  readonly workspaceId: string | null;
  /** Changes when the memory list was read again (a change, a pin): the preview follows. */
  readonly listVersion: number;
  readonly onClose: () => void;
}

/** `3.2 KiB`, `512 B`: sizes against a budget, as a person reads them. */
export function kib(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const k = bytes / 1024;
  return `${k % 1 === 0 ? k.toFixed(0) : k.toFixed(1)} KiB`;
}

function Part({ title, what, part }: { title: string; what: string; part: { text: string; bytes: number; budget: number } }) {
  // A budget of 0 turns the part off (Settings, Agent context): said so, never "0 B of 0 B".
  const off = part.budget === 0;
  const ratio = off ? 0 : Math.min(1, part.bytes / part.budget);
  const label = off ? `${what}: off (its budget is 0 in Settings, Agent context)` : `${what}: ${kib(part.bytes)} of ${kib(part.budget)}`;
  return (
    <section className="context-part" aria-label={title}>
      <div className="context-part-head">
        <h3>{title}</h3>
        <span className="context-budget">{label}</span>
      </div>
      <div className="budget-meter" role="meter" aria-label={`${title} size`} aria-valuemin={0} aria-valuemax={part.budget} aria-valuenow={part.bytes} aria-valuetext={label}>
        <span style={{ width: `${(ratio * 100).toFixed(1)}%` }} className={ratio >= 0.9 ? 'full' : undefined} />
      </div>
      <pre className="context-text" tabIndex={0}>
        {part.text}
      </pre>
    </section>
  );
}

type ScopeCount = z.infer<typeof indexScopeCountSchema>;

/** "global: all 12 files listed", "project: 0 of 1,000 files listed". */
function scopeCountText({ scope, listed, total }: ScopeCount): string {
  const files = `${total.toLocaleString('en')} ${total === 1 ? 'file' : 'files'}`;
  if (total === 0) return `${scope}: no files`;
  return listed === total ? `${scope}: ${total === 1 ? 'its' : 'all'} ${files} listed` : `${scope}: ${listed.toLocaleString('en')} of ${files} listed`;
}

function ScopeCounts({ scopes }: { scopes: readonly ScopeCount[] }) {
  const short = scopes.some((s) => s.listed < s.total);
  return (
    <div className="context-scopes">
      <p>
        <strong>In the index:</strong> {scopes.map(scopeCountText).join('; ')}.
      </p>
      {short && <p className="muted">The index stops at its size budget; agents find the files not listed by viewing /memories or with memory_search.</p>}
    </div>
  );
}

/** A prompt tried here, and the relevant memories it would bring, as the prompt hook injects them. */
function TryPrompt({ workspaceId }: { workspaceId: string | null }) {
  const { client } = useApi();
  const [prompt, setPrompt] = useState('');
  const [answer, setAnswer] = useState<{ prompt: string; part: z.infer<typeof contextPartSchema> } | null>(null);
  const action = useAction();
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const asked = prompt.trim();
    if (asked === '') return;
    void action.run(async () => {
      setAnswer({ prompt: asked, part: await client.context.relevant({ workspaceId, prompt: asked }) });
    });
  };
  return (
    <section className="context-try" aria-label="Try a prompt">
      <form className="context-try-form" onSubmit={submit}>
        <label>
          Try a prompt
          <input value={prompt} onChange={(e) => setPrompt(e.target.value)} placeholder="fix the flaky login test" maxLength={4000} />
        </label>
        <button type="submit" className="btn" disabled={action.busy || prompt.trim() === ''}>
          {action.busy ? <Loader2 size={14} className="spin" aria-hidden /> : <Search size={14} aria-hidden />} Show what it brings
        </button>
      </form>
      {action.error && <ErrorText>Could not try the prompt: {action.error}</ErrorText>}
      {answer &&
        (answer.part.text === '' ? (
          <p role="status">Nothing: the relevant memories are off for this view (Settings, Agent context), or no memory matches.</p>
        ) : (
          <Part title="Relevant memories" what={`for "${answer.prompt}"`} part={answer.part} />
        ))}
    </section>
  );
}

export function ContextPreview({ workspaceId, listVersion, onClose }: ContextPreviewProps) {
  const { orpc } = useApi();
  const preview = useQuery({ ...orpc.context.preview.queryOptions({ input: { workspaceId } }), staleTime: 0 });
  const { refetch } = preview;
  useEffect(() => {
    void refetch();
  }, [listVersion, refetch]);
  return (
    <Dialog
      title="What agents receive"
      onClose={onClose}
      wide
      footer={
        <>
          <button type="button" className="btn" onClick={() => void preview.refetch()}>
            <RefreshCw size={14} aria-hidden /> Refresh
          </button>
          <button type="button" className="btn primary" onClick={onClose}>
            Close
          </button>
        </>
      }
    >
      <p className="muted">
        At the start of every session, before any tool call: the index of every memory file, then the hot set (pinned files first, then the most used), as <code>cairn context</code> prints them.
      </p>
      {preview.isError ? (
        <LoadFailed what="what agents receive" error={preview.error} onRetry={() => void preview.refetch()} />
      ) : !preview.data ? (
        <Loading what="what agents receive" />
      ) : (
        <div className="context-preview">
          <ScopeCounts scopes={preview.data.scopes} />
          <TryPrompt workspaceId={workspaceId} />
          <Part title="Memory index" what="index" part={preview.data.index} />
          <Part title="Hot set" what="hot set" part={preview.data.hot} />
        </div>
      )}
    </Dialog>
  );
}
