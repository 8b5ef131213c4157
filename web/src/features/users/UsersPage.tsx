export default function UsersPage() {
  return <div>UsersPage</div>;
}
