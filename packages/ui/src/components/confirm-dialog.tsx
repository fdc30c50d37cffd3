/**
 * A modal yes/no question (the native <dialog>: focus moves into it, Escape closes it, and the
 * page behind is inert), for what cannot be undone: deleting content, revoking a token.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export interface ConfirmProps {
  open: boolean;
  title: string;
  confirmLabel: string;
  children: ComponentChildren;
  onConfirm(): void;
  onCancel(): void;
}

export function ConfirmDialog({ open, title, confirmLabel, children, onConfirm, onCancel }: ConfirmProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onCancel={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      <div class="actions">
        <button type="button" class="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" class="secondary" onClick={onCancel} autofocus>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
