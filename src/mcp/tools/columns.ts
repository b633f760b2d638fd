import { z } from 'zod';
import { toolPosition } from '../../shared/tools.js';
import { type DocketClient, seg } from '../client.js';
import {
  type ColumnRaw,
  CREATE,
  columnOut,
  countText,
  DELETE,
  defineTool,
  findColumn,
  getColumns,
  presentColumn,
  projectKeyParam,
  projectPath,
  READ,
  UPDATE,
} from './common.js';

const columnPath = (projectKey: string, c: ColumnRaw) => `${projectPath(projectKey)}/columns/${seg(c.id)}`;
const boardText = (cols: ColumnRaw[]) => cols.map((c) => `${c.order + 1}. ${c.name}`).join(', ');
const boardOut = { ...columnOut.shape, board: z.array(columnOut) };

/** The column and the whole board after a change, so the new positions are visible. */
async function withBoard(api: DocketClient, projectKey: string, id: string) {
  const cols = await getColumns(api, projectKey);
  const c = cols.find((x) => x.id === id) ?? cols[0];
  return { column: c, cols, data: { ...presentColumn(c), board: cols.map(presentColumn) } };
}

const listColumns = defineTool({
  name: 'list_columns',
  description: "List a project's board columns with 1-based positions.",
  input: { projectKey: projectKeyParam },
  output: { columns: z.array(columnOut), total: z.number() },
  annotations: READ,
  async run({ projectKey }, api) {
    const cols = await getColumns(api, projectKey);
    return {
      text: `${countText(cols.length, cols.length, 'columns')} ${boardText(cols)}`,
      data: { columns: cols.map(presentColumn), total: cols.length },
    };
  },
});

const createColumn = defineTool({
  name: 'create_column',
  description: 'Add a board column at a 1-based position (default: the end).',
  input: { projectKey: projectKeyParam, name: z.string(), position: toolPosition.optional() },
  output: boardOut,
  annotations: CREATE,
  async run({ projectKey, name, position }, api) {
    const c = await api.post<ColumnRaw>(
      `${projectPath(projectKey)}/columns`,
      { name, ...(position !== undefined ? { order: position - 1 } : {}) },
      { subject: { project: projectKey } },
    );
    const r = await withBoard(api, projectKey, c.id);
    return {
      text: `Created column ${r.column.name} at position ${r.column.order + 1}: ${boardText(r.cols)}`,
      data: r.data,
    };
  },
});

const renameColumn = defineTool({
  name: 'rename_column',
  description: 'Rename a board column.',
  input: { projectKey: projectKeyParam, columnName: z.string(), newName: z.string() },
  output: boardOut,
  annotations: UPDATE,
  async run({ projectKey, columnName, newName }, api) {
    const c = findColumn(api, await getColumns(api, projectKey), columnName);
    await api.patch(columnPath(projectKey, c), { name: newName }, { subject: { project: projectKey } });
    const r = await withBoard(api, projectKey, c.id);
    return { text: `Renamed column ${c.name} to ${r.column.name}`, data: r.data };
  },
});

const reorderColumn = defineTool({
  name: 'reorder_column',
  description: 'Move a board column to a 1-based position.',
  input: { projectKey: projectKeyParam, columnName: z.string(), position: toolPosition },
  output: boardOut,
  annotations: UPDATE,
  async run({ projectKey, columnName, position }, api) {
    const c = findColumn(api, await getColumns(api, projectKey), columnName);
    await api.patch(columnPath(projectKey, c), { order: position - 1 }, { subject: { project: projectKey } });
    const r = await withBoard(api, projectKey, c.id);
    return {
      text: `Moved column ${c.name} to position ${r.column.order + 1}: ${boardText(r.cols)}`,
      data: r.data,
    };
  },
});

const deleteColumn = defineTool({
  name: 'delete_column',
  description: 'Delete a board column, moving its tickets to another column.',
  input: {
    projectKey: projectKeyParam,
    columnName: z.string(),
    moveTicketsTo: z.string().describe('Column name'),
  },
  output: { name: z.string(), movedTo: z.string(), board: z.array(columnOut) },
  annotations: DELETE,
  async run({ projectKey, columnName, moveTicketsTo }, api) {
    const cols = await getColumns(api, projectKey);
    const c = findColumn(api, cols, columnName);
    const target = findColumn(api, cols, moveTicketsTo);
    await api.del(
      columnPath(projectKey, c),
      { moveTicketsTo: target.id },
      { subject: { project: projectKey } },
    );
    const after = await getColumns(api, projectKey);
    return {
      text: `Deleted column ${c.name}; its tickets moved to ${target.name}. Board: ${boardText(after)}`,
      data: { name: c.name, movedTo: target.name, board: after.map(presentColumn) },
    };
  },
});

export const columnTools = [listColumns, createColumn, renameColumn, reorderColumn, deleteColumn];
