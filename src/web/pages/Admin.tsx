// PLACEHOLDER: replaced entirely by the Administration page (issue 10).
export function AdminPage(_: { section?: string }) {
  return null;
}
