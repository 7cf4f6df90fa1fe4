/**
 * The one rule for the folder a person gives "Add workspace" (the dialog checks it as they type,
 * the registry again on the server): it must be absolute. A relative path is refused, never
 * resolved: the server's working directory is not the person's, so "src/app" or "~/src/app" would
 * name some other folder, or none. Pure: the renderer and main share it.
 */

/** Whether `folder` is absolute: `/...` (POSIX, and every SSH host), or `C:\...`, `C:/...`, `\\server\...` on Windows. */
export function isAbsoluteFolder(folder: string, where: 'local' | 'ssh'): boolean {
  if (folder.startsWith('/')) return true;
  return where === 'local' && (/^[A-Za-z]:[\\/]/.test(folder) || folder.startsWith('\\\\'));
}

/** Why `folder` cannot be registered as it is, in a person's words; null when it is absolute. */
export function relativeFolderProblem(folder: string, where: 'local' | 'ssh'): string | null {
  const given = folder.trim();
  if (given === '' || isAbsoluteFolder(given, where)) return null;
  const home = given === '~' || given.startsWith('~/') ? ' (~ is not expanded)' : '';
  const on = where === 'ssh' ? 'on that host ' : '';
  return `The folder must be an absolute path ${on}that starts with /, such as /home/you/src/project; "${given}" is relative${home}. Cairn does not guess what it is relative to.`;
}
