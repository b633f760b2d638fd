// PLACEHOLDER: replaced entirely by the Reports page (issue 10).
export function ReportsPage(_: { projectKey: string }) {
  return null;
}
