/**
 * How to connect each agent to one workspace: a tab per agent with the very lines `cairn setup`
 * writes (served by `setup.guide` for that workspace's checkout), each with a copy button. Shown by
 * the first-run state and by "Connect an agent…" (ConnectAgentDialog), so the two never differ.
 */
import { useQuery } from '@tanstack/react-query';
import { Loader2 } from 'lucide-react';
import { useState } from 'react';
import { errorMessage, useApi } from '../../api/api-context';
import { CopyButton } from '../../lib/CopyButton';

export function AgentSetupGuide({ workspaceId }: { workspaceId: string | null }) {
  const { orpc } = useApi();
  const guide = useQuery(orpc.setup.guide.queryOptions({ input: { workspaceId } }));
  const [agent, setAgent] = useState(0);
  const current = guide.data?.[agent];
  if (guide.isError)
    return (
      <p className="error-text" role="alert">
        Could not load the setup lines: {errorMessage(guide.error)}{' '}
        <button type="button" className="link" onClick={() => void guide.refetch()}>
          Retry
        </button>
      </p>
    );
  if (!guide.data)
    return (
      <p role="status">
        <Loader2 size={14} className="spin" aria-hidden /> Loading the setup lines…
      </p>
    );
  return (
    <>
      <div className="tabs" role="tablist" aria-label="Agent">
        {guide.data.map((g, i) => (
          <button key={g.agent} type="button" role="tab" aria-selected={i === agent} className={i === agent ? 'tab selected' : 'tab'} onClick={() => setAgent(i)}>
            {g.name}
          </button>
        ))}
      </div>
      {current && (
        <div role="tabpanel" aria-label={current.name} className="agent-guide">
          <p>Run this in a terminal; it merges Cairn into {current.name}'s configuration and keeps a backup:</p>
          <div className="code-line">
            <code>{current.command}</code>
            <CopyButton text={current.command} label={`Copy the ${current.name} setup command`} />
          </div>
          {current.files.map((f) => (
            <details key={f.path}>
              <summary>Or merge it yourself into {f.path}</summary>
              <div className="code-block">
                <pre>{f.snippet}</pre>
                <CopyButton text={f.snippet} label={`Copy the snippet for ${f.path}`} />
              </div>
            </details>
          ))}
          {current.alternative && (
            <details>
              <summary>{current.alternative.title}</summary>
              <div className="code-line">
                <code>{current.alternative.line}</code>
                <CopyButton text={current.alternative.line} label="Copy the alternative command" />
              </div>
            </details>
          )}
          <p className="muted">{current.nextSteps}</p>
        </div>
      )}
    </>
  );
}
