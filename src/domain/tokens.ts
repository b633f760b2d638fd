import { hash } from 'node:crypto';
import { randomToken } from './ids.js';

/**
 * Session tokens and API keys are stored only as SHA-256 hashes; they carry 256 bits of entropy.
 * The one-shot `hash` is several times faster than a Hash object, and it runs on every request.
 */
export const hashToken = (token: string): string => hash('sha256', token, 'hex');

export const newSessionToken = (): string => randomToken(32);

export const API_KEY_PREFIX = 'dk_';
export const newApiKey = (): string => `${API_KEY_PREFIX}${randomToken(32)}`;
