/**
 * "Connect an agent…" for one workspace, from its menu in the sidebar: the setup lines of each
 * agent for that workspace's checkout (AgentSetupGuide), in a dialog, whatever the window's width
 * and however much memory there is already.
 */
import { Dialog } from '../dialogs/Dialog';
import { AgentSetupGuide } from './AgentSetupGuide';

export function ConnectAgentDialog({ workspaceId, name, onClose }: { workspaceId: string; name: string; onClose: () => void }) {
  return (
    <Dialog
      title={`Connect an agent to ${name}`}
      onClose={onClose}
      wide
      footer={
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      }
    >
      <div className="connect-agent">
        <p>Agents started in this workspace's folder then read and write its memory through Cairn's <code>memory</code> tool.</p>
        <AgentSetupGuide workspaceId={workspaceId} />
      </div>
    </Dialog>
  );
}
