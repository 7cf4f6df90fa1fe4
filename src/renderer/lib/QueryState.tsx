/**
 * What a view shows while its data loads, or when it could not: one look, one wording ("Could not
 * load X: why", Retry; "Loading X…"), for the tree, the history and the inbox.
 */
import { Loader2, RefreshCw } from 'lucide-react';
import { errorMessage } from '../api/api-context';

export function LoadFailed({ what, error, onRetry }: { what: string; error: unknown; onRetry: () => void }) {
  return (
    <div className="state error" role="alert">
      <p>
        Could not load {what}: {errorMessage(error)}
      </p>
      <button type="button" className="btn" onClick={onRetry}>
        <RefreshCw size={14} aria-hidden /> Retry
      </button>
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <div className="state" role="status">
      <Loader2 size={16} className="spin" aria-hidden /> Loading {what}…
    </div>
  );
}
