export default function AdminDashboardPage() {
  return <div>AdminDashboardPage</div>;
}
