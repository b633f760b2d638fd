import { type ReactNode, useState } from 'react';
import { ConfirmDialog } from './ConfirmDialog';
import { Section } from './ProjectNav';
import { Button } from './ui';

/**
 * A destructive action in a danger section: the button opens a confirmation proportional to its
 * reach (the password, a text to type, or both); `onConfirm` gets the password, its error stays in
 * the dialog. The one shape of "delete the project", "delete my account" and the wipes.
 */
export function DangerZone({
  title,
  description,
  action,
  dialogTitle,
  confirmLabel,
  busyLabel,
  password = false,
  typeText,
  onConfirm,
  children,
}: {
  title: string;
  description: string;
  /** The section's button, e.g. "Delete this project…". */
  action: string;
  dialogTitle: string;
  confirmLabel: string;
  busyLabel: string;
  password?: boolean;
  typeText: string;
  onConfirm: (password: string) => Promise<unknown>;
  /** What the dialog says will happen. */
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Section title={title} danger description={description}>
      <Button variant="danger" onClick={() => setOpen(true)}>
        {action}
      </Button>
      {open && (
        <ConfirmDialog
          title={dialogTitle}
          confirmLabel={confirmLabel}
          busyLabel={busyLabel}
          password={password}
          typeText={typeText}
          onClose={() => setOpen(false)}
          onConfirm={onConfirm}
        >
          {children}
        </ConfirmDialog>
      )}
    </Section>
  );
}
