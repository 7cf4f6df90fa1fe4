/**
 * What failed, said where it happened: a paragraph in the error colour with role `alert`, so a
 * screen reader reads it out at once; nothing at all while there is no error.
 */
import type { ReactNode } from 'react';

export function ErrorText({ children }: { children: ReactNode }) {
  if (children === null || children === undefined || children === false || children === '') return null;
  return (
    <p className="error-text" role="alert">
      {children}
    </p>
  );
}
