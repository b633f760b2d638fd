import { useUserSearch } from '../api/users';
import { Avatar, EmptyState, Skeleton } from '../components/ui';
import { PageHeader } from './projects';

/** A person, as a mention links to them: name, username and avatar. */
export function PersonPage({ username }: { username: string }) {
  const search = useUserSearch(username, true);
  const person = search.data?.find((u) => u.username.toLowerCase() === username.toLowerCase());
  return (
    <div className="flex h-full flex-col">
      <PageHeader title={person ? (person.name ?? person.username) : `@${username}`} />
      <div className="p-4">
        {search.isPending && <Skeleton className="h-16 w-64" />}
        {search.isSuccess && !person && (
          <EmptyState title="No such person">There is no active account named @{username}.</EmptyState>
        )}
        {person && (
          <div className="flex items-center gap-3" data-testid="person">
            <Avatar name={person.name ?? person.username} src={person.avatar} size={48} />
            <div>
              <div className="text-[15px] font-semibold">{person.name ?? person.username}</div>
              <div className="text-muted">@{person.username}</div>
            </div>
          </div>
        )}
      </div>
    </div>
  );
}
