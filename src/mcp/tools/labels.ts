import { z } from 'zod';
import { type DocketClient, seg } from '../client.js';
import {
  CREATE,
  DELETE,
  defineTool,
  findLabel,
  getLabels,
  getTicket,
  type LabelRaw,
  labelOut,
  presentLabel,
  projectKeyParam,
  projectPath,
  READ,
  ToolError,
  ticketKeyParam,
  UPDATE,
} from './common.js';
import { cursorParam, pageOfList, pageShape, pageText } from './paging.js';

const color = z.string().describe('#RRGGBB');
const labelPath = (projectKey: string, l: LabelRaw) => `${projectPath(projectKey)}/labels/${seg(l.id)}`;

const listLabels = defineTool({
  name: 'list_labels',
  description: "List a project's labels.",
  input: {
    projectKey: projectKeyParam,
    limit: z.number().int().min(1).max(200).default(100),
    cursor: cursorParam,
  },
  output: { labels: z.array(labelOut), ...pageShape },
  annotations: READ,
  async run(a, api) {
    const all = (await getLabels(api, a.projectKey)).map(presentLabel);
    const { offset, items, page } = pageOfList('list_labels', a, all, a.limit);
    const lines = items.map((l) => `${l.name} ${l.color}`);
    return {
      text: pageText('list_labels', 'labels', lines, offset, page, 'by name'),
      data: { labels: items, ...page },
    };
  },
});

const createLabel = defineTool({
  name: 'create_label',
  description: 'Create a label in a project.',
  input: { projectKey: projectKeyParam, name: z.string(), color: color.optional() },
  output: labelOut.shape,
  annotations: CREATE,
  async run({ projectKey, ...body }, api) {
    const l = presentLabel(
      await api.post<LabelRaw>(`${projectPath(projectKey)}/labels`, body, {
        subject: { project: projectKey },
      }),
    );
    return { text: `Created label ${l.name} (${l.color}) in ${projectKey.toUpperCase()}`, data: l };
  },
});

const updateLabel = defineTool({
  name: 'update_label',
  description: 'Rename or recolor a label.',
  input: {
    projectKey: projectKeyParam,
    labelName: z.string().describe('Name or id'),
    name: z.string().optional(),
    color: color.optional(),
  },
  output: labelOut.shape,
  annotations: UPDATE,
  async run({ projectKey, labelName, ...changes }, api) {
    const body = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(body).length === 0) throw new ToolError('Nothing to update: give name or color.');
    const label = findLabel(api, await getLabels(api, projectKey), labelName);
    const l = presentLabel(
      await api.patch<LabelRaw>(labelPath(projectKey, label), body, { subject: { project: projectKey } }),
    );
    return {
      text: `Updated label ${label.name}${l.name !== label.name ? ` to ${l.name}` : ''} (${l.color})`,
      data: l,
    };
  },
});

const deleteLabel = defineTool({
  name: 'delete_label',
  description: 'Delete a label; tickets lose it.',
  input: { projectKey: projectKeyParam, labelName: z.string().describe('Name or id') },
  output: { name: z.string(), deleted: z.boolean() },
  annotations: DELETE,
  async run({ projectKey, labelName }, api) {
    const label = findLabel(api, await getLabels(api, projectKey), labelName);
    await api.del(labelPath(projectKey, label), undefined, { subject: { project: projectKey } });
    return { text: `Deleted label ${label.name}`, data: { name: label.name, deleted: true } };
  },
});

/** Adds or removes one label on a ticket, keeping the others. */
async function editTicketLabels(api: DocketClient, ticketKey: string, labelName: string, add: boolean) {
  const t = await getTicket(api, ticketKey);
  const label = findLabel(api, await getLabels(api, t.projectKey), labelName);
  const current = (t.ticket.labels ?? []).map((l) => l.id);
  const has = current.includes(label.id);
  const labels = (t.ticket.labels ?? []).map((l) => l.name);
  if (has === add) {
    return {
      text: `${t.ticketKey} ${add ? 'already has' : 'does not have'} label ${label.name}`,
      data: { key: t.ticketKey, labels, changed: false },
    };
  }
  const labelIds = add ? [...current, label.id] : current.filter((id) => id !== label.id);
  await api.patch(t.path, { labelIds }, { subject: { project: t.projectKey, ticket: t.ticketKey } });
  const after = add ? [...labels, label.name] : labels.filter((n) => n !== label.name);
  return {
    text: `${add ? 'Added' : 'Removed'} label ${label.name} ${add ? 'to' : 'from'} ${t.ticketKey}`,
    data: { key: t.ticketKey, labels: after, changed: true },
  };
}

const ticketLabelsOut = { key: z.string(), labels: z.array(z.string()), changed: z.boolean() };

const addLabelToTicket = defineTool({
  name: 'add_label_to_ticket',
  description: 'Add a label to a ticket.',
  input: { ticketKey: ticketKeyParam, labelName: z.string().describe('Name or id') },
  output: ticketLabelsOut,
  annotations: UPDATE,
  run: (a, api) => editTicketLabels(api, a.ticketKey, a.labelName, true),
});

const removeLabelFromTicket = defineTool({
  name: 'remove_label_from_ticket',
  description: 'Remove a label from a ticket.',
  input: { ticketKey: ticketKeyParam, labelName: z.string().describe('Name or id') },
  output: ticketLabelsOut,
  annotations: UPDATE,
  run: (a, api) => editTicketLabels(api, a.ticketKey, a.labelName, false),
});

export const labelTools = [
  listLabels,
  createLabel,
  updateLabel,
  deleteLabel,
  addLabelToTicket,
  removeLabelFromTicket,
];
