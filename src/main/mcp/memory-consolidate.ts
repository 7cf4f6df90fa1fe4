/**
 * The `agent` consolidation backend over MCP: the prompt `consolidate`, which gives the running
 * agent one scope's files as the model backends get them (consolidation/consolidation-prompt.ts: ranked by use,
 * their usage, what changed since the last consolidation, fenced as untrusted data, secrets
 * removed), and the tool `memory_consolidate`, by which it answers with changes. Owns the tool's
 * input schema, the agent as a ConsolidationExtractor, and the texts of both answers.
 *
 * The agent's changes are read by the model backends' reader (consolidation/model-consolidation.ts changesOfItems)
 * and checked by Consolidations.propose like any model's (versions, protection, names, content scanners);
 * the proposal is stored for a person (`cairn consolidate show ID`, the app's Consolidate view), under
 * the scope's lease (a busy scope is said in words, with who holds it).
 *
 * Invariants: nothing here writes memory (only a proposal's record), so both are offered in every
 * mode, explore included; the prompt's data is computed by Consolidations.propose itself (an extractor that
 * keeps its input and proposes nothing: nothing is stored, and "nothing to consolidate" is judged
 * exactly as for any backend); no answer carries a host path (Consolidations' refusals name virtual paths;
 * any other failure is answered in general words, its detail on stderr).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SCOPES, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { formatMemoryPath } from '../../common/memory/paths';
import {
  CONSOLIDATE_PROMPT,
  CONSOLIDATE_PROMPT_DESCRIPTION,
  MCP_CONSOLIDATE_PROMPT_MARKER,
  MEMORY_CONSOLIDATE_TOOL,
  memoryConsolidateDescription,
} from '../../common/memory/tool-description';
import { CONSOLIDATION_DEFAULT_DAYS, CONSOLIDATION_MAX_CHANGES, type ConsolidationRefusal, type ConsolidationSince } from '../../common/consolidation/proposal';
import type { MemorySession } from '../memory/session';
import type { ConsolidationExtractor, ConsolidationInput } from '../consolidation/extractor';
import { changesOfItems } from '../consolidation/model-consolidation';
import { ConsolidationBusyError } from '../consolidation/consolidation-lease';
import { consolidationPrompt } from '../consolidation/consolidation-prompt';
import type { ProposeOutcome, Consolidations } from '../consolidation/consolidations';

/** The extractor's name in a proposal (`cairn consolidate show` says what proposed it). */
const AGENT_EXTRACTOR = 'agent';
/** More than a proposal holds, so that a long list is refused item by item past the cap, not whole. */
const MAX_ITEMS = CONSOLIDATION_MAX_CHANGES * 2;

// Flat on purpose: the MCP SDK advertises a zod union as an empty object. Null means absent (strict-mode
// providers send null for every field a change does not use); each item's shape is judged by the
// model backends' reader, which refuses a malformed one with the reason and keeps the rest.
const memoryConsolidateInput = {
  scope: z.enum(SCOPES).nullish().describe('The scope to consolidate: global, project or workspace (default: project if this session has one, else global).'),
  changes: z
    .array(
      z.object({
        kind: z.enum(['write', 'delete', 'rename']).describe('write (a file\'s whole new text), delete, or rename.'),
        path: z.string().describe('The file, /memories/<scope>/..., exactly as the consolidate prompt gave it (a write into a new file: its new path).'),
        basedOn: z.string().nullable().describe("The file's sha256 as the consolidate prompt gave it; null only for a write into a new file."),
        reason: z.string().describe('One sentence for the person: why.'),
        content: z.string().nullish().describe('write: the whole new text of the file.'),
        to: z.string().nullish().describe('rename: the new path, in the same scope.'),
        mergedInto: z.string().nullish().describe('delete of a file merged into another: the kept file\'s path.'),
      }),
    )
    .max(MAX_ITEMS)
    .describe(`The changes, at most ${CONSOLIDATION_MAX_CHANGES}; [] when nothing should change.`),
};

type AgentChange = z.infer<z.ZodObject<typeof memoryConsolidateInput>>['changes'][number];

/** An agent's change as the model backends' reader takes it: "kind" is its "op", null fields absent. */
function asModelItem(change: AgentChange): Record<string, unknown> {
  const { kind, ...rest } = change;
  const item: Record<string, unknown> = { op: kind };
  for (const [k, v] of Object.entries(rest)) if (v !== undefined && (v !== null || k === 'basedOn')) item[k] = v;
  return item;
}

/** The running agent as a consolidation extractor: its answer is the changes of its tool call. */
export function agentConsolidationExtractor(changes: readonly AgentChange[]): ConsolidationExtractor {
  return { name: AGENT_EXTRACTOR, offline: false, propose: async (input) => changesOfItems(changes.map(asModelItem), input) };
}

/** The scope a call names, else the session's project scope when it has one, else global. */
export function consolidationScope(session: MemorySession, scope: string | null | undefined): Scope {
  if (scope !== null && scope !== undefined && scope !== '') {
    if (!(SCOPES as readonly string[]).includes(scope)) throw new MemoryToolError(`Choose a scope: one of ${SCOPES.join(', ')}.`);
    return scope as Scope;
  }
  return session.scopes.project.available ? 'project' : 'global';
}

const minute = (iso: string | null | undefined) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : 'an earlier time');
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function refusedLines(refused: readonly ConsolidationRefusal[]): string[] {
  if (refused.length === 0) return [];
  return [`Refused ${plural(refused.length, 'change', 'changes')} (not in the proposal):`, ...refused.map((r) => `- ${r.change}: ${r.reason}`)];
}

/** Why a scope has nothing to consolidate before any extractor is asked. */
function unchanged(where: string, since: ConsolidationSince, days: number): string {
  return `Nothing to consolidate in ${where}: nothing changed since the last consolidation (${minute(since.last?.at)}) and no file is unused for ${days} days.`;
}

const consolidationTexts = {
  unavailable: () => 'This Cairn server takes no consolidation proposals, so nothing was proposed.',
  failed: () => 'Cairn could not propose the consolidation (an internal error; its details are in the log of the Cairn process). Nothing was written to memory.',
  /**
   * What the tool answers the agent; `error`: every change was refused (the agent may fix them and
   * call again). No `more` line: the reader takes at most CONSOLIDATION_MAX_CHANGES items, so all that pass fit.
   */
  outcome: (scope: Scope, outcome: ProposeOutcome, days: number): { text: string; error: boolean } => {
    const where = formatMemoryPath(scope);
    if (outcome.status === 'nothing') {
      if (!outcome.extractorCalled) return { text: `${unchanged(where, outcome.since, days)} Your changes were not looked at, and nothing was proposed.`, error: false };
      if (outcome.refused.length === 0) return { text: `Nothing was proposed for ${where}: the call held no change. Nothing was written to memory.`, error: false };
      return { text: [`Nothing was proposed for ${where}: every change was refused. Nothing was written to memory.`, ...refusedLines(outcome.refused)].join('\n'), error: true };
    }
    const p = outcome.proposal;
    return {
      text: [
        `Proposed a consolidation of ${where} for a person's review: ${outcome.summary} (proposal ${p.id}, open until ${minute(p.expiresAt)}; it replaces any older proposal for this scope).`,
        ...refusedLines(outcome.refused),
        `Nothing was written to memory: a person reviews each change with \`cairn consolidate show ${p.id} --diff\` (or in the Cairn app: Consolidate… on the scope) and applies those they agree with.`,
      ].join('\n'),
      error: false,
    };
  },
} as const;

/** Why a call failed, for the agent: Cairn's own refusals as they are, anything else in general words (no host path). */
function failure(err: unknown): string {
  if (err instanceof MemoryToolError) return err.message;
  process.stderr.write(`cairn: ${MEMORY_CONSOLIDATE_TOOL} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return consolidationTexts.failed();
}

/** The prompt's text for `scope`: the consolidation prompt as put to an agent, or why there is nothing to ask. */
async function consolidatePromptText(consolidations: Consolidations, session: MemorySession, scope: Scope): Promise<string> {
  let input: ConsolidationInput | null = null;
  // Consolidations.propose computes the input (under the lease, judging "nothing to consolidate"); this
  // extractor keeps it and proposes nothing, so nothing is stored.
  const keep: ConsolidationExtractor = {
    name: AGENT_EXTRACTOR,
    offline: false,
    propose: async (i) => {
      input = i;
      return { changes: [] };
    },
  };
  const outcome = await consolidations.propose(session, { scope, extractor: keep });
  if (input === null) {
    const since = outcome.status === 'nothing' ? outcome.since : { last: null, changed: [], total: 0 };
    return `${MCP_CONSOLIDATE_PROMPT_MARKER}\n${unchanged(formatMemoryPath(scope), since, CONSOLIDATION_DEFAULT_DAYS)} There is nothing to propose: do not call \`${MEMORY_CONSOLIDATE_TOOL}\`.\n`;
  }
  return consolidationPrompt(input, { marker: MCP_CONSOLIDATE_PROMPT_MARKER, tool: MEMORY_CONSOLIDATE_TOOL });
}

/** Registers the prompt and the tool on `server`; without `consolidations` the tool proposes nothing and says so. */
export function registerConsolidation(server: McpServer, options: { consolidations: Consolidations | undefined; session: MemorySession }): void {
  const { consolidations, session } = options;
  server.registerPrompt(
    CONSOLIDATE_PROMPT,
    {
      title: 'Consolidate memory',
      description: CONSOLIDATE_PROMPT_DESCRIPTION,
      argsSchema: { scope: z.string().optional().describe('global, project or workspace (default: project if this session has one, else global).') },
    },
    async ({ scope }) => {
      if (!consolidations) throw new McpError(ErrorCode.InvalidRequest, consolidationTexts.unavailable());
      let text: string;
      try {
        text = await consolidatePromptText(consolidations, session, consolidationScope(session, scope));
      } catch (err) {
        // A busy scope is the agent's to relay ("try again when it has finished"); a wrong or unavailable scope is a bad argument.
        if (err instanceof ConsolidationBusyError) text = `${MCP_CONSOLIDATE_PROMPT_MARKER}\n${err.message}\n`;
        else if (err instanceof MemoryToolError) throw new McpError(ErrorCode.InvalidParams, err.message);
        else throw new McpError(ErrorCode.InternalError, failure(err));
      }
      return { description: CONSOLIDATE_PROMPT_DESCRIPTION, messages: [{ role: 'user', content: { type: 'text', text } }] };
    },
  );

  server.registerTool(
    MEMORY_CONSOLIDATE_TOOL,
    {
      title: 'Propose a consolidation',
      description: memoryConsolidateDescription(CONSOLIDATION_MAX_CHANGES),
      inputSchema: memoryConsolidateInput,
      // It stores a proposal (not read-only) but changes no memory and destroys nothing; a repeat
      // replaces the scope's proposal with the same changes.
      annotations: { title: 'Propose a consolidation', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ scope, changes }) => {
      if (!consolidations) return { content: [{ type: 'text', text: consolidationTexts.unavailable() }], isError: true };
      try {
        const chosen = consolidationScope(session, scope);
        const outcome = await consolidations.propose(session, { scope: chosen, extractor: agentConsolidationExtractor(changes) });
        const { text, error } = consolidationTexts.outcome(chosen, outcome, CONSOLIDATION_DEFAULT_DAYS);
        return { content: [{ type: 'text', text }], isError: error };
      } catch (err) {
        return { content: [{ type: 'text', text: failure(err) }], isError: true };
      }
    },
  );
}
