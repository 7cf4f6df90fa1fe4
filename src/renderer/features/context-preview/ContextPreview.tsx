/**
 * What agents receive without asking: the memory index and the hot set of this view,
 * exactly as `cairn context` and the MCP server's instructions render them (context.preview: the
 * same ContextBuilder and render functions on the server), each with its size against its byte
 * budget. Shown as plain text: memory content is untrusted and is never rendered as markup here.
 * Asked again when memory or pins change (a list refresh), and on Refresh.
 */
import { useQuery } from '@tanstack/react-query';
import { RefreshCw } from 'lucide-react';
import { useEffect } from 'react';
import { useApi } from '../../api/api-context';
import { LoadFailed, Loading } from '../../lib/QueryState';
import { Dialog } from '../dialogs/Dialog';

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
          <Part title="Memory index" what="index" part={preview.data.index} />
          <Part title="Hot set" what="hot set" part={preview.data.hot} />
        </div>
      )}
    </Dialog>
  );
}
