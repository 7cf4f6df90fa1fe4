/** What agents receive without asking, as the person previews it. */
import { oc } from '@orpc/contract';
import { z } from 'zod';
import { workspaceRef } from './shared';

/** One part of what agents receive: its text as rendered, its size and its budget, in UTF-8 bytes. */
export const contextPartSchema = z.object({ text: z.string(), bytes: z.number().int(), budget: z.number().int() });

export const contextContract = {
  /**
   * What agents receive without asking: the memory index and the hot set exactly as
   * `cairn context` renders them, each with its size and its budget in bytes.
   */
  preview: oc.input(z.object({ workspaceId: workspaceRef })).output(z.object({ index: contextPartSchema, hot: contextPartSchema })),
};
