import { columnTools } from './columns.js';
import type { ToolDef } from './common.js';
import { labelTools } from './labels.js';
import { memberTools } from './members.js';
import { projectTools } from './projects.js';
import { searchTools } from './search.js';
import { sprintSettingsTools } from './sprint-settings.js';
import { sprintTools } from './sprints.js';
import { ticketPartTools } from './ticket-parts.js';
import { ticketTools } from './tickets.js';

/** The one set of tool definitions (SPEC "Tool server operations"), served over stdio and /api/mcp. */
export const TOOLS: ToolDef[] = [
  ...ticketTools,
  ...ticketPartTools,
  ...projectTools,
  ...sprintTools,
  ...sprintSettingsTools,
  ...memberTools,
  ...labelTools,
  ...columnTools,
  ...searchTools,
];
