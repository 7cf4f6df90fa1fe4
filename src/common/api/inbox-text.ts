/**
 * The Inbox's words, said the same way by the app's cards, the CLI's lines and the API's answers:
 * what an agent's change held for review does (review mode), and where a proposal came
 * from (an agent's session, or a file a person imported or adopted). Pure.
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
  readonly agent: 'claude' | 'codex' | 'copilot' | 'gemini' | null;
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

/**
 * Why nothing more is proposed: the inbox holds as many pending items as it takes. Said to a model
 * (memory_propose, a write under review: what to ask of the user) or to the person (an import, a
 * harvest: how to make room); it names no host path.
 */
export function inboxFullText(cap: number, to: 'model' | 'person' = 'model'): string {
  const full = `Cairn's inbox is full: ${cap} items already wait for a person's review, the most it holds, so nothing more is proposed until some are approved or rejected.`;
  return to === 'model'
    ? `${full} Ask the user to review the inbox (cairn inbox list, or the Inbox in the Cairn app).`
    : `${full} Review them (cairn inbox list, then cairn inbox approve or reject ID; or the app's Inbox, which rejects everything from one file or session at once).`;
}

/**
 * Why the inbox cannot be listed at all (its folder of items exists but cannot be read, `code` the
 * system's error code: EACCES, EIO, ...): never shown as an empty inbox. Names no host path.
 */
export function inboxUnreadableText(code: string): string {
  return `Cairn cannot read its inbox (${code}), so it cannot say what waits for your review; nothing in it is lost. Check the owner and permissions of the inbox folder in Cairn's home (it must be yours and readable by you), then try again.`;
}

/**
 * What a person can do about an inbox item file Cairn cannot read (it is not JSON, or not an
 * item): the file is left as it is, never rewritten or removed by Cairn.
 */
export function damagedItemText(file: string, problem: string): string {
  return `The inbox item file ${file} is damaged: ${problem}. Cairn cannot show, approve or reject it and leaves it as it is. Look at it (it is JSON, one item per file); once it holds nothing you need, remove it (rm ${shellWord(file)}).`;
}

/** A path as one word of a POSIX shell command. */
function shellWord(text: string): string {
  return /^[\w./@+:-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Who said an evidence quote, as an inbox item records it (null: an item from before speakers were recorded). */
export type EvidenceSpeaker = 'person' | 'agent' | 'tool' | null;

/**
 * The warning on a proposal whose every quote is a tool's output (a file the agent read, a
 * command's output): nobody in the session said it, and such text is where planted instructions
 * hide. Null when someone said any of it.
 */
export function toolOnlyText(evidence: ReadonlyArray<{ readonly speaker?: EvidenceSpeaker | undefined }>): string | null {
  if (evidence.length === 0 || !evidence.every((e) => e.speaker === 'tool')) return null;
  return 'Only a tool\u2019s output backs this: a file the agent read or a command\u2019s output, not anything you or the agent said. Check it against the source before approving.';
}
