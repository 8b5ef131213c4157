export default function InstancesPage() {
  return <div>InstancesPage</div>;
}
