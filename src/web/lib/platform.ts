/**
 * The platform's modifier key for shortcuts: ⌘ on Apple systems, Ctrl elsewhere. The app accepts
 * both everywhere (hooks/shortcuts.ts); this is only what it shows.
 */
const platform =
  (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData?.platform ||
  navigator.platform ||
  navigator.userAgent;
export const IS_APPLE = /mac|iphone|ipad|ipod/i.test(platform);
export const MOD_KEY = IS_APPLE ? '⌘' : 'Ctrl';

/** A shortcut with the modifier as the platform writes it: "⌘K" on a Mac, "Ctrl+K" elsewhere. */
export const modShortcut = (key: string) => (IS_APPLE ? `⌘${key}` : `Ctrl+${key}`);
