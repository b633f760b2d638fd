import type { ProjectRole } from '../../shared/projects';
import { useMyRole } from '../api/members';
import type { Project } from '../api/types';
import { ProjectFrame } from '../components/ProjectNav';
import { ColumnsSection } from './settings-columns';
import { DeleteProjectSection, GeneralSection, TicketDeletionSection } from './settings-general';
import { LabelsSection, SprintSettingsSection } from './settings-labels';
import { MembersSection } from './settings-members';
import { TemplatesSection } from './settings-templates';
import { TrashSection } from './settings-trash';
import { WebhooksSection } from './settings-webhooks';

export type Role = ProjectRole;

export { useMyRole };

export function ProjectSettingsPage({ projectKey }: { projectKey: string }) {
  return (
    <ProjectFrame projectKey={projectKey} tab="settings">
      {(project) => <SettingsBody project={project} />}
    </ProjectFrame>
  );
}

export function SettingsBody({ project }: { project: Project }) {
  const { role, userId } = useMyRole(project);
  const manage = role === 'owner' || role === 'admin';
  return (
    <div className="flex max-w-3xl flex-col gap-4 p-4">
      {!manage && role && (
        <p className="rounded-md border border-line bg-surface-2 px-3 py-2 text-muted">
          You are a member of this project: you can manage labels; the project's admins and owner manage the
          rest.
        </p>
      )}
      <GeneralSection project={project} canEdit={manage} />
      <TicketDeletionSection project={project} canEdit={manage} />
      <ColumnsSection project={project} canEdit={manage} />
      <MembersSection project={project} role={role} userId={userId} />
      <LabelsSection project={project} />
      <TemplatesSection project={project} canEdit={manage} />
      <SprintSettingsSection project={project} canEdit={manage} />
      {manage && <WebhooksSection project={project} />}
      {role && <TrashSection project={project} manage={manage} />}
      {role === 'owner' && <DeleteProjectSection project={project} />}
    </div>
  );
}
