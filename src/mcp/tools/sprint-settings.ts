import { z } from 'zod';
import { doneColumnIds } from '../../shared/rules.js';
import type { sprintSettingsOut } from '../../shared/sprints.js';
import type { DocketClient } from '../client.js';
import {
  type ColumnRaw,
  defineTool,
  findColumn,
  getColumns,
  projectKeyParam,
  projectPath,
  READ,
  ToolError,
  UPDATE,
} from './common.js';

/**
 * The sprint settings of a project (issue 20): which columns count as done when a sprint completes
 * (none chosen: the last column), the default sprint length and automatic carry-over.
 */

type SettingsRaw = z.infer<typeof sprintSettingsOut>;

const settingsOut = {
  doneColumns: z.array(z.string()),
  doneColumnsChosen: z.boolean(),
  defaultSprintDuration: z.number(),
  autoCarryOverIncomplete: z.boolean(),
};

function present(s: SettingsRaw, columns: ColumnRaw[]) {
  const ids = columns.map((c) => c.id);
  const chosen = s.doneColumnIds.filter((id) => ids.includes(id));
  const done = doneColumnIds(ids, s.doneColumnIds);
  return {
    doneColumns: columns.filter((c) => done.includes(c.id)).map((c) => c.name),
    doneColumnsChosen: chosen.length > 0,
    defaultSprintDuration: s.defaultSprintDuration,
    autoCarryOverIncomplete: s.autoCarryOverIncomplete,
  };
}

const text = (projectKey: string, d: ReturnType<typeof present>) =>
  `Sprint settings of ${projectKey.toUpperCase()}: done columns ${d.doneColumns.join(', ') || 'none'}${
    d.doneColumnsChosen ? '' : ' (none chosen: the last column)'
  } · sprints last ${d.defaultSprintDuration} week${d.defaultSprintDuration === 1 ? '' : 's'} · incomplete tickets ${
    d.autoCarryOverIncomplete ? 'carry over automatically' : 'are not carried over automatically'
  }`;

const read = async (api: DocketClient, projectKey: string) =>
  Promise.all([
    api.get<SettingsRaw>(`${projectPath(projectKey)}/sprints/settings`, { subject: { project: projectKey } }),
    getColumns(api, projectKey),
  ]);

const getSprintSettings = defineTool({
  name: 'get_sprint_settings',
  description: 'Done columns (for sprint completion), sprint length, carry-over.',
  input: { projectKey: projectKeyParam },
  output: settingsOut,
  annotations: READ,
  async run({ projectKey }, api) {
    const [s, columns] = await read(api, projectKey);
    const data = present(s, columns);
    return { text: text(projectKey, data), data };
  },
});

const updateSprintSettings = defineTool({
  name: 'update_sprint_settings',
  description: 'Change sprint settings (admin).',
  input: {
    projectKey: projectKeyParam,
    doneColumns: z.array(z.string()).optional().describe('Names or ids; [] = the last column'),
    defaultSprintDuration: z.number().int().min(1).max(4).optional().describe('Weeks'),
    autoCarryOverIncomplete: z.boolean().optional(),
  },
  output: settingsOut,
  annotations: UPDATE,
  async run({ projectKey, doneColumns, ...rest }, api) {
    const body: Record<string, unknown> = Object.fromEntries(
      Object.entries(rest).filter(([, v]) => v !== undefined),
    );
    if (doneColumns) {
      const columns = await getColumns(api, projectKey);
      body.doneColumnIds = [...new Set(doneColumns.map((n) => findColumn(api, columns, n).id))];
    }
    if (Object.keys(body).length === 0) {
      throw new ToolError(
        'Nothing to update: give doneColumns, defaultSprintDuration or autoCarryOverIncomplete.',
      );
    }
    await api.patch(`${projectPath(projectKey)}/sprints/settings`, body, {
      subject: { project: projectKey },
    });
    const [s, columns] = await read(api, projectKey);
    const data = present(s, columns);
    return { text: `Updated. ${text(projectKey, data)}`, data };
  },
});

export const sprintSettingsTools = [getSprintSettings, updateSprintSettings];
