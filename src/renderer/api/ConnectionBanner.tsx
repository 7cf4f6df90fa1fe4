/**
 * Says, over whatever the window shows, when web mode has lost Cairn: "Reconnecting…" while the
 * connection tries again by itself (and nothing else: it goes away once Cairn answers), or what to
 * do when Cairn no longer takes this page's token. When the connection comes back, every query is
 * asked again: what changed while the page was away (agents keep writing) was never streamed to it.
 */
import { useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, Loader2 } from 'lucide-react';
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { connectionStatus } from './client';
import { TEXTS } from './connection';

export function ConnectionBanner() {
  const status = connectionStatus();
  const state = useSyncExternalStore(
    (l) => status.subscribe(l),
    () => status.state,
  );
  const queryClient = useQueryClient();
  const wasAway = useRef(false);
  useEffect(() => {
    if (state !== 'online') wasAway.current = true;
    else if (wasAway.current) {
      wasAway.current = false;
      void queryClient.invalidateQueries();
    }
  }, [state, queryClient]);

  if (state === 'reconnecting') {
    return (
      <div className="connection-banner" role="status">
        <Loader2 size={14} className="spin" aria-hidden /> Reconnecting to Cairn… Nothing you typed is lost.
      </div>
    );
  }
  if (state === 'refused' || state === 'no-token') {
    return (
      <div className="connection-banner bad" role="alert">
        <AlertTriangle size={14} aria-hidden /> {state === 'refused' ? TEXTS.refused : TEXTS.noToken}
      </div>
    );
  }
  return null;
}
