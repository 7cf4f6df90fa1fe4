/** Cairn's own files that did not parse and were set aside; removed only when the person says so. */
import { oc } from '@orpc/contract';
import { z } from 'zod';
import { changeResultSchema } from './shared';

/**
 * One of Cairn's own files that did not parse and was moved aside (`<name>.damaged-<time>`), so
 * Cairn started it afresh: where it is, which file it was (relative to Cairn's home), when, and the
 * start of what it holds.
 */
const setAsideFileSchema = z.object({
  aside: z.string(),
  file: z.string(),
  at: z.string(),
  bytes: z.number(),
  preview: z.string(),
  /** Whether the file holds more than `preview`. */
  cut: z.boolean(),
});
export type SetAsideFileView = z.infer<typeof setAsideFileSchema>;

export const setAsideContract = {
  list: oc.output(z.object({ files: z.array(setAsideFileSchema) })),
  remove: oc.input(z.object({ aside: z.string().min(1).max(4096) })).output(changeResultSchema),
};
