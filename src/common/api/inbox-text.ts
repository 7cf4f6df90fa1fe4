/**
 * The Inbox's words, said the same way by the app's cards, the CLI's lines and the API's answers:
 * what an agent's change held for review does (issue 19, review mode), and where a proposal came
 * from (an agent's session, or a file a person imported or adopted: issue 23). Pure.
 */
import { AGENT_NAMES, shortSession } from './harvest-status-text';
export interface ChangeWords {
  readonly command: 'create' | 'str_replace' | 'insert' | 'delete' | 'rename';
  readonly path: string;
  /** A rename's destination. */
  readonly newPath: string | null;
}

/** "Create /memories/project/notes.md", "Rename /a.md to /b.md", "Edit /x.md" (with `detail`: "Edit /x.md (insert)"). */
export function changeTitle(change: ChangeWords, detail = false): string {
  switch (change.command) {
    case 'create':
      return `Create ${change.path}`;
    case 'delete':
      return `Delete ${change.path}`;
    case 'rename':
      return `Rename ${change.path} to ${change.newPath}`;
    default:
      return detail ? `Edit ${change.path} (${change.command})` : `Edit ${change.path}`;
  }
}

/** Where a proposal came from, as stored: the session's agent (null for an import or an adopt) and id. */
export interface ProposalOrigin {
  readonly agent: 'claude' | 'codex' | null;
  readonly sessionId: string;
}

/**
 * "Claude Code session 1a2b3c4d", "the import of AGENTS.md", "the adoption of ~/.claude/CLAUDE.md": the
 * source of a group of proposals, after "from". A session id `import:<file>` or `adopt:<file>` is a
 * file a person brought in (cairn import, Adopt in the app); whatever agent it was written for.
 */
export function originText(origin: ProposalOrigin): string {
  const file = fileOrigin(origin.sessionId);
  if (file) return `the ${file.how === 'import' ? 'import' : 'adoption'} of ${file.file}`;
  return `${origin.agent === null ? 'an agent' : AGENT_NAMES[origin.agent]} session ${shortSession(origin.sessionId)}`;
}

/** The file a person imported or adopted, when a proposal's session id names one; else null. */
export function fileOrigin(sessionId: string): { readonly how: 'import' | 'adopt'; readonly file: string } | null {
  const m = /^(import|adopt):(.+)$/s.exec(sessionId);
  return m ? { how: m[1] as 'import' | 'adopt', file: m[2]! } : null;
}
