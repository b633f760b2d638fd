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
import {
  addMemberBody,
  columnParams,
  createColumnBody,
  createLabelBody,
  createProjectBody,
  deleteColumnBody,
  labelParams,
  listQuery,
  memberParams,
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
    { schema: { tags: projects, summary: 'Projects I can access, by name', querystring: listQuery } },
    async (req, reply) => {
      const { items, total } = await listProjects(req.ctx, req.query);
      reply.header('X-Total-Count', String(total));
      return items;
    },
  );
  app.post(
    '/api/projects',
    { schema: { tags: projects, summary: 'Create a project (I become its owner)', body: createProjectBody } },
    async (req, reply) => reply.status(201).send(await createProject(req.ctx, req.body)),
  );
  app.get(
    P,
    { schema: { tags: projects, summary: 'A project (members)', params: projectParams } },
    async (req) => getProject(req.ctx, req.params.projectId),
  );
  app.patch(
    P,
    {
      schema: {
        tags: projects,
        summary: 'Update name, description or colour (admin or owner)',
        params: projectParams,
        body: updateProjectBody,
      },
    },
    async (req) => updateProject(req.ctx, req.params.projectId, req.body),
  );
  app.delete(
    P,
    { schema: { tags: projects, summary: 'Delete a project and all of it (owner)', params: projectParams } },
    async (req) => deleteProject(req.ctx, req.params.projectId),
  );

  const columns = ['Columns'];
  app.get(
    `${P}/columns`,
    { schema: { tags: columns, summary: 'Board columns by order', params: projectParams } },
    async (req) => listColumns(req.ctx, req.params.projectId),
  );
  app.post(
    `${P}/columns`,
    {
      schema: {
        tags: columns,
        summary: 'Add a column (admin or owner)',
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
        params: memberParams,
        body: updateMemberBody,
      },
    },
    async (req) => changeMemberRole(req.ctx, req.params.projectId, req.params.memberId, req.body.role),
  );
  app.delete(
    `${P}/members/:memberId`,
    { schema: { tags: members, summary: 'Remove a member, or leave the project', params: memberParams } },
    async (req) => removeMember(req.ctx, req.params.projectId, req.params.memberId),
  );

  const labels = ['Labels'];
  app.get(
    `${P}/labels`,
    { schema: { tags: labels, summary: 'Labels by name', params: projectParams, querystring: listQuery } },
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
        params: labelParams,
        body: updateLabelBody,
      },
    },
    async (req) => updateLabel(req.ctx, req.params.projectId, req.params.labelId, req.body),
  );
  app.delete(
    `${P}/labels/:labelId`,
    { schema: { tags: labels, summary: 'Delete a label (it leaves every ticket)', params: labelParams } },
    async (req) => deleteLabel(req.ctx, req.params.projectId, req.params.labelId),
  );
};
