import { createContext, useContext } from 'react';
import type { TicketPatch } from '../api/tickets';

export interface ShellApi {
  openPalette: () => void;
  openHelp: () => void;
  createProject: () => void;
  /** Opens the new-ticket dialog for a project (the current one when omitted). */
  newTicket: (projectId?: string, defaults?: TicketPatch) => void;
  /** The board registers its search box here so that `/` can focus it. */
  setSearchFocus: (fn: (() => void) | null) => void;
  signOut: () => void;
}

export const ShellContext = createContext<ShellApi>({
  openPalette: () => {},
  openHelp: () => {},
  createProject: () => {},
  newTicket: () => {},
  setSearchFocus: () => {},
  signOut: () => {},
});
export const useShell = () => useContext(ShellContext);
