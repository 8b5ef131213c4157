export default function BulkMessagePage() {
  return <div>BulkMessagePage</div>;
}
