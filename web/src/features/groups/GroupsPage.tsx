export default function GroupsPage() {
  return <div>GroupsPage</div>;
}
