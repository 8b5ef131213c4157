import { Modal, type ModalProps } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';

/**
 * The one modal of the app: full screen below 768 px (STYLE.md: usable at 360 px), centred
 * otherwise, with a close button a screen reader names 'Close'. Mantine's modals sit above the
 * demo banner (z-index 150 < 200), so no z-index is set here.
 */
export function AppModal({ children, ...props }: ModalProps) {
  const small = useMediaQuery('(max-width: 48em)');
  return (
    <Modal centered fullScreen={small} closeButtonProps={{ 'aria-label': 'Close' }} {...props}>
      {children}
    </Modal>
  );
}
