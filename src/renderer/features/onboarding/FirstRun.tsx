/**
 * The first-run state of a view with no memory: what memory is, and how to connect each agent
 * (AgentSetupGuide). The same guide stays reachable afterwards, at any width, from each
 * workspace's menu in the sidebar ("Connect an agent…": ConnectAgentDialog).
 */
import { AgentSetupGuide } from './AgentSetupGuide';

export function FirstRun({ workspaceId }: { workspaceId: string | null }) {
  return (
    <section className="first-run" aria-label="Connect an agent">
      <h2>No memories yet</h2>
      <p>
        Memory is what your coding agents keep between sessions: the build steps they worked out, your preferences, the lessons
        from their mistakes. Agents read and write it through Cairn's <code>memory</code> tool; you see, edit, pin and prune it here.
      </p>
      <p>Connect an agent and its memories appear here as it writes them.</p>
      <AgentSetupGuide workspaceId={workspaceId} />
    </section>
  );
}
