/** What agents receive without asking, as the person previews it, and what a prompt would bring. */
import { oc } from '@orpc/contract';
import { z } from 'zod';
import { SCOPES } from '../../memory/constants';
import { workspaceRef } from './shared';

/** One part of what agents receive: its text as rendered, its size and its budget, in UTF-8 bytes. */
export const contextPartSchema = z.object({ text: z.string(), bytes: z.number().int(), budget: z.number().int() });

/** How many of a scope's memory files the index lists (the rest are past its byte budget, withheld, or over the scope's cap). */
export const indexScopeCountSchema = z.object({ scope: z.enum(SCOPES), listed: z.number().int(), total: z.number().int() });

/** The longest prompt the preview takes: a person's try, not a whole transcript. */
const CONTEXT_PROMPT_MAX_CHARS = 4000;

export const contextContract = {
  /**
   * What agents receive without asking: the memory index and the hot set exactly as
   * `cairn context` renders them, each with its size and its budget in bytes, and per scope of
   * the view how many of its files the index lists.
   */
  preview: oc
    .input(z.object({ workspaceId: workspaceRef }))
    .output(z.object({ index: contextPartSchema, hot: contextPartSchema, scopes: z.array(indexScopeCountSchema) })),
  /**
   * What a prompt would bring: the relevant memories the prompt hook injects for `prompt` in this
   * view, by its injection settings (the same builder and rendering as `cairn context --prompt`),
   * with their size against the relevant memories' byte budget.
   */
  relevant: oc.input(z.object({ workspaceId: workspaceRef, prompt: z.string().max(CONTEXT_PROMPT_MAX_CHARS) })).output(contextPartSchema),
};
