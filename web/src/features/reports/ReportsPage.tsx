export default function ReportsPage() {
  return <div>ReportsPage</div>;
}
