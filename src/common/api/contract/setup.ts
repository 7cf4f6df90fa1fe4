/** How to connect each agent to Cairn, as `cairn setup` would. */
import { oc } from '@orpc/contract';
import { z } from 'zod';
import { workspaceRef } from './shared';

/** How to connect one agent to Cairn: what `cairn setup <agent>` does, as lines a person can copy. */
export const agentGuideSchema = z.object({
  agent: z.enum(['claude', 'codex', 'cursor', 'gemini', 'copilot']),
  name: z.string(),
  /** The `cairn setup` line that writes the configuration. */
  command: z.string(),
  /** What it merges into each file (absent without a local checkout to set up). */
  files: z.array(z.object({ path: z.string(), snippet: z.string() })),
  alternative: z.object({ title: z.string(), line: z.string() }).nullable(),
  nextSteps: z.string(),
});

export const setupContract = {
  guide: oc.input(z.object({ workspaceId: workspaceRef })).output(z.array(agentGuideSchema)),
};
