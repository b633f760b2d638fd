import { createHash } from 'node:crypto';
import { randomToken } from './ids.js';

/** Session tokens and API keys are stored only as SHA-256 hashes; they carry 256 bits of entropy. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export const newSessionToken = (): string => randomToken(32);

export const API_KEY_PREFIX = 'dk_';
export const newApiKey = (): string => `${API_KEY_PREFIX}${randomToken(32)}`;
