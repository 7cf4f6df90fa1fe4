/** The routes of Cairn's own files that were set aside: listed, and removed when the person says so. */
import { listSetAsideFiles, removeSetAsideFile } from '../set-aside-files';
import { os } from '../base';

export const setAside = {
  list: os.setAside.list.handler(({ context }) => ({ files: listSetAsideFiles(context.registry.home) })),
  remove: os.setAside.remove.handler(({ input, context }) => ({ status: 'ok' as const, message: removeSetAsideFile(context.registry.home, input.aside) })),
};
