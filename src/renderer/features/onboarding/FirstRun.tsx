/**
 * The first-run state: what memory is, and how to connect each agent, with the same lines
 * `cairn setup` writes and the README shows (served by `setup.guide`), each with a copy button.
 */
import { useQuery } from '@tanstack/react-query';
import { Loader2 } from 'lucide-react';
import { useState } from 'react';
import { useApi } from '../../api/api-context';
import { CopyButton } from '../../lib/CopyButton';

export function FirstRun({ workspaceId }: { workspaceId: string | null }) {
  const { orpc } = useApi();
  const guide = useQuery(orpc.setup.guide.queryOptions({ input: { workspaceId } }));
  const [agent, setAgent] = useState(0);
  const current = guide.data?.[agent];
  return (
    <section className="first-run" aria-label="Connect an agent">
      <h2>No memories yet</h2>
      <p>
        Memory is what your coding agents keep between sessions: the build steps they worked out, your preferences, the lessons
        from their mistakes. Agents read and write it through Cairn's <code>memory</code> tool; you see, edit, pin and prune it here.
      </p>
      <p>Connect an agent and its memories appear here as it writes them.</p>
      {!guide.data ? (
        <p role="status">
          <Loader2 size={14} className="spin" aria-hidden /> Loading the setup lines…
        </p>
      ) : (
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
      )}
    </section>
  );
}
