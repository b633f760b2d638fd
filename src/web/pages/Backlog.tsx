// PLACEHOLDER: replaced entirely by the Backlog page (issue 10).
export function BacklogPage(_: { projectKey: string }) {
  return null;
}
