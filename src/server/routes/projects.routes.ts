import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createColumn, deleteColumn, listColumns, updateColumn } from '../../domain/columns.js';
import { createLabel, deleteLabel, listLabels, updateLabel } from '../../domain/labels.js';
import { addMember, changeMemberRole, listMembers, removeMember } from '../../domain/members.js';
import {
  createProject,
  deleteProject,
  getProject,
  listProjects,
  updateProject,
} from '../../domain/projects.js';
import { successResponse } from '../../shared/common.js';
import {
  addMemberBody,
  columnOut,
  columnParams,
  createColumnBody,
  createLabelBody,
  createProjectBody,
  deleteColumnBody,
  labelOut,
  labelParams,
  listQuery,
  memberOut,
  memberParams,
  projectOut,
  projectParams,
  updateColumnBody,
  updateLabelBody,
  updateMemberBody,
  updateProjectBody,
} from '../../shared/projects.js';

const P = '/api/projects/:projectId';

/** Projects, their board columns, members and labels. `:projectId` is the id or the key. */
export const projectsRoutes: FastifyPluginAsyncZod = async (app) => {
  const projects = ['Projects'];
  app.get(
    '/api/projects',
    {
      schema: {
        tags: projects,
        summary: 'Projects I can access, by name',
        response: { 200: projectOut.array() },
        querystring: listQuery,
      },
    },
    async (req, reply) => {
      const { items, total } = await listProjects(req.ctx, req.query);
      reply.header('X-Total-Count', String(total));
      return items;
    },
  );
  app.post(
    '/api/projects',
    {
      schema: {
        tags: projects,
        summary: 'Create a project (I become its owner)',
        response: { 201: projectOut },
        body: createProjectBody,
      },
    },
    async (req, reply) => reply.status(201).send(await createProject(req.ctx, req.body)),
  );
  app.get(
    P,
    {
      schema: {
        tags: projects,
        summary: 'A project (members)',
        response: { 200: projectOut },
        params: projectParams,
      },
    },
    async (req) => getProject(req.ctx, req.params.projectId),
  );
  app.patch(
    P,
    {
      schema: {
        tags: projects,
        summary: 'Update name, description or colour (admin or owner)',
        response: { 200: projectOut },
        params: projectParams,
        body: updateProjectBody,
      },
    },
    async (req) => updateProject(req.ctx, req.params.projectId, req.body),
  );
  app.delete(
    P,
    {
      schema: {
        tags: projects,
        summary: 'Delete a project and all of it (owner)',
        response: { 200: successResponse },
        params: projectParams,
      },
    },
    async (req) => deleteProject(req.ctx, req.params.projectId),
  );

  const columns = ['Columns'];
  app.get(
    `${P}/columns`,
    {
      schema: {
        tags: columns,
        summary: 'Board columns by order',
        response: { 200: columnOut.array() },
        params: projectParams,
      },
    },
    async (req) => listColumns(req.ctx, req.params.projectId),
  );
  app.post(
    `${P}/columns`,
    {
      schema: {
        tags: columns,
        summary: 'Add a column (admin or owner)',
        response: { 201: columnOut },
        params: projectParams,
        body: createColumnBody,
      },
    },
    async (req, reply) => reply.status(201).send(await createColumn(req.ctx, req.params.projectId, req.body)),
  );
  app.patch(
    `${P}/columns/:columnId`,
    {
      schema: {
        tags: columns,
        summary: 'Rename or reorder a column (admin or owner)',
        response: { 200: columnOut },
        params: columnParams,
        body: updateColumnBody,
      },
    },
    async (req) => updateColumn(req.ctx, req.params.projectId, req.params.columnId, req.body),
  );
  app.delete(
    `${P}/columns/:columnId`,
    {
      schema: {
        tags: columns,
        summary: 'Delete a column, moving its tickets to moveTicketsTo (admin or owner)',
        response: { 200: successResponse },
        params: columnParams,
        body: deleteColumnBody,
      },
    },
    async (req) => deleteColumn(req.ctx, req.params.projectId, req.params.columnId, req.body),
  );

  const members = ['Members'];
  app.get(
    `${P}/members`,
    {
      schema: {
        tags: members,
        summary: 'Members: owner, admins, members, each by username',
        response: { 200: memberOut.array() },
        params: projectParams,
        querystring: listQuery,
      },
    },
    async (req, reply) => {
      const { items, total } = await listMembers(req.ctx, req.params.projectId, req.query);
      reply.header('X-Total-Count', String(total));
      return items;
    },
  );
  app.post(
    `${P}/members`,
    {
      schema: {
        tags: members,
        summary: 'Add a member by userId or username (admin or owner)',
        response: { 201: memberOut },
        params: projectParams,
        body: addMemberBody,
      },
    },
    async (req, reply) => reply.status(201).send(await addMember(req.ctx, req.params.projectId, req.body)),
  );
  app.patch(
    `${P}/members/:memberId`,
    {
      schema: {
        tags: members,
        summary: "Change a member's role; role owner transfers ownership",
        response: { 200: memberOut },
        params: memberParams,
        body: updateMemberBody,
      },
    },
    async (req) => changeMemberRole(req.ctx, req.params.projectId, req.params.memberId, req.body.role),
  );
  app.delete(
    `${P}/members/:memberId`,
    {
      schema: {
        tags: members,
        summary: 'Remove a member, or leave the project',
        response: { 200: successResponse },
        params: memberParams,
      },
    },
    async (req) => removeMember(req.ctx, req.params.projectId, req.params.memberId),
  );

  const labels = ['Labels'];
  app.get(
    `${P}/labels`,
    {
      schema: {
        tags: labels,
        summary: 'Labels by name',
        response: { 200: labelOut.array() },
        params: projectParams,
        querystring: listQuery,
      },
    },
    async (req, reply) => {
      const { items, total } = await listLabels(req.ctx, req.params.projectId, req.query);
      reply.header('X-Total-Count', String(total));
      return items;
    },
  );
  app.post(
    `${P}/labels`,
    {
      schema: {
        tags: labels,
        summary: 'Create a label (colour auto-assigned when omitted)',
        response: { 201: labelOut },
        params: projectParams,
        body: createLabelBody,
      },
    },
    async (req, reply) => reply.status(201).send(await createLabel(req.ctx, req.params.projectId, req.body)),
  );
  app.patch(
    `${P}/labels/:labelId`,
    {
      schema: {
        tags: labels,
        summary: 'Rename or recolour a label',
        response: { 200: labelOut },
        params: labelParams,
        body: updateLabelBody,
      },
    },
    async (req) => updateLabel(req.ctx, req.params.projectId, req.params.labelId, req.body),
  );
  app.delete(
    `${P}/labels/:labelId`,
    {
      schema: {
        tags: labels,
        summary: 'Delete a label (it leaves every ticket)',
        response: { 200: successResponse },
        params: labelParams,
      },
    },
    async (req) => deleteLabel(req.ctx, req.params.projectId, req.params.labelId),
  );
};
