/**
 * Copies `text` to the clipboard and says how it went through `say`: "Copied {what}.", or that the
 * browser did not allow it (not every page may write the clipboard: an insecure origin has no
 * navigator.clipboard).
 */
export function copyText(text: string, what: string, say: (message: string, tone: 'status' | 'alert') => void): void {
  const refused = 'The browser did not allow copying here.';
  const clipboard = navigator.clipboard as Clipboard | undefined;
  if (!clipboard) return say(refused, 'alert');
  void clipboard.writeText(text).then(
    () => say(`Copied ${what}.`, 'status'),
    () => say(refused, 'alert'),
  );
}
